// orders.ts — a stand-in for your order database, with two test orders. Replace it with
// your own lookups: the amount and the customer come from here, never from the browser.
export interface Order {
  total: string;
  currency: string;
  /** Your id of the customer who placed the order (saved cards are kept per customer). */
  customerId: string;
  customer: {firstName: string; lastName: string; email: string; phone: string};
  paid: boolean;
}

const olena = {
  firstName: 'Olena',
  lastName: 'Kovalenko',
  email: 'olena@example.com',
  phone: '+380501234567',
};

const orders = new Map<string, Order>([
  // XTS: the gateway's test currency; live orders carry their own (UAH).
  [
    'ORDER-1001',
    {total: '1.50', currency: 'XTS', customerId: 'olena', customer: olena, paid: false},
  ],
  [
    'ORDER-1002',
    {total: '4.20', currency: 'XTS', customerId: 'olena', customer: olena, paid: false},
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
