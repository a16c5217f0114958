// webhooks.ts — the gateway's webhooks received yourself, without the companion: verified
// on the raw fields first, then each event applied once.
import {Hono} from 'hono';
import {
  parseWebhookForm,
  verifyWebhook,
  WebhookSignatureError,
  type WebhookPayload,
} from 'pg-checkout/server';

const seen = new Set<string>(); // use your database: a unique key on the event
async function applyOnce(data: string, event: WebhookPayload): Promise<void> {
  if (seen.has(data)) return; // webhooks can arrive more than once
  seen.add(data);
  console.log(`${event.kind} webhook for ${event.order_id}: ${event.status}`);
}

const app = new Hono();
app.post('/gateway/webhooks', async (c) => {
  const form = parseWebhookForm(await c.req.text()); // {data, signature} exactly as sent
  try {
    const event = verifyWebhook(form, process.env.API_SECRET!);
    await applyOnce(form.data, event);
  } catch (error) {
    if (error instanceof WebhookSignatureError) return c.body(null, 400);
    throw error;
  }
  return c.body(null, 200);
});
export default app;
