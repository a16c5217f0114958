// orders.ts — a stand-in for your order database, with one test order. Replace it with
// your own lookups: the amount and the customer come from here, never from the browser.
export interface Order {
  total: string;
  currency: string;
  customer: {firstName: string; lastName: string; email: string; phone: string};
  paid: boolean;
}

const orders = new Map<string, Order>([
  [
    'ORDER-1001',
    {
      total: '1.50',
      currency: 'XTS', // the gateway's test currency; live orders carry their own (UAH)
      customer: {
        firstName: 'Olena',
        lastName: 'Kovalenko',
        email: 'olena@example.com',
        phone: '+380501234567',
      },
      paid: false,
    },
  ],
]);

export async function findOrder(orderRef: string): Promise<Order | undefined> {
  return orders.get(orderRef);
}

export async function markPaid(orderRef: string): Promise<void> {
  const order = orders.get(orderRef);
  if (order && !order.paid) {
    order.paid = true;
    console.log(`order ${orderRef} paid`);
  }
}
