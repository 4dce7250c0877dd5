/* global window -- page.evaluate callbacks run in the browser */
// Browser test of the mall (issue 16) against the real backend, with the fake Stripe
// (tests/fakes/stripe_fake.py) as the payment provider: a free user sees the half-price
// offer (once a day), the subscription banner and the VIP pop-up, opens the mall, buys the full monthly plan
// through the fake hosted checkout (#pay sends the signed webhooks and redirects back), lands
// on the return page that waits for the confirmation, and then has the member perks: the VIP
// badge, the fast lane, 4 images per run and no LoRA limit (a task with 4 LoRAs makes 4
// images). Screenshots go to docs/screenshots/: mall.png, mall-vip.png, mall-return.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, signUp, ringPng, taskEnd, uploadPng } from './helpers.mjs';
import { startStripeFake } from './stripeFake.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const TIMEOUT_MS = 20_000;
const STRIPE_KEY = 'sk_test_mall_e2e';
const STRIPE_WEBHOOK_SECRET = 'whsec_mall_e2e';
/** Texts of en.mall.ts / en.generator.ts the page must show. */
const TEXT = {
  banner: 'Members get 4 images per run, the fast lane and unlimited LoRAs.',
  vipTitle: 'Become a member',
  perks: [
    '4 images per run',
    'The fast lane: your tasks skip the free queue',
    'Unlimited LoRA models',
    'An unlimited queue',
    'Member-only video qualities',
  ],
  paid: 'Payment received. Thank you!',
  loraFreeLimit: 'Free accounts can use up to 3 LoRAs at once.',
};

/** @type {Awaited<ReturnType<typeof startStripeFake>> | undefined} */
let stripe;
/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
let orderId = '';
const pageProblems = [];

const post = (pathname, body) => apiPost(backend.url, pathname, body ?? {}, token);
const OPERATOR = 'mall-operator@example.com';

async function shot(name) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

function planCard(plan, period) {
  return page.locator(`[data-testid="plan-card"][data-plan="${plan}"][data-period="${period}"]`);
}

describe('the mall: a free user buys the full plan through the checkout and gets the perks', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    stripe = await startStripeFake({ apiKey: STRIPE_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET });
    backend = await startBackend({
      env: {
        EASEL_STRIPE_SECRET_KEY: STRIPE_KEY,
        EASEL_STRIPE_WEBHOOK_SECRET: STRIPE_WEBHOOK_SECRET,
        EASEL_STRIPE_API_URL: stripe.url,
        EASEL_ADMINS: OPERATOR,
      },
    });
    await stripe.configure(new URL('/api/v1/payment/webhook/stripe', backend.url).href);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`csp: ${m.text()}`);
    });
    ({ token } = await signUp(backend.url, { prefix: 'mall', password: 'mall-test-password-1', name: 'Mall Buyer' }));
    await context.addCookies([{ name: 'T', value: token, url: backend.url, sameSite: 'Lax' }]);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      try {
        await backend?.stop();
      } finally {
        await stripe?.stop();
      }
    }
  });

  test('a free user: the half-price offer once, the banner, and the VIP pop-up leading to the mall', async () => {
    const offer = page.waitForResponse((r) => r.url().endsWith('/api/v1/payment/discount/popup-info'));
    await page.goto(new URL('/en/', backend.url).href);
    await page.getByTestId('account-name').filter({ hasText: 'Mall Buyer' }).waitFor();
    const badge = page.getByTestId('vip-badge');
    await badge.filter({ hasText: 'Get VIP' }).waitFor();
    assert.equal(await badge.getAttribute('data-vip'), 'false');
    await page.getByTestId('header-credits').filter({ hasText: /^\d+ credits$/ }).waitFor();

    // A new account never had a plan: the server offers its first plan at a discount, once today.
    const answer = await (await offer).json();
    assert.equal(answer.status.code, 10000, JSON.stringify(answer.status));
    assert.equal(answer.data.show, true, JSON.stringify(answer.data));
    // It pops up as a strip under the header in place of the banner (never a modal).
    const strip = page.getByTestId('discount-offer');
    await strip.waitFor();
    assert.match((await strip.getAttribute('aria-label')) ?? '', /^Today only: \d+% off$/);
    assert.equal(await page.getByTestId('subscription-banner').count(), 0);
    assert.equal(await page.getByRole('dialog').count(), 0);
    await strip.getByRole('button', { name: 'Dismiss' }).click();
    await strip.waitFor({ state: 'hidden' });
    // Dismissing the offer brings the banner back.
    await page.getByTestId('subscription-banner').filter({ hasText: TEXT.banner }).waitFor();

    await badge.click();
    const vip = page.getByRole('dialog', { name: TEXT.vipTitle });
    await vip.waitFor();
    assert.deepEqual(await vip.getByTestId('vip-perks').locator('li').allTextContents(), TEXT.perks);
    await shot('mall-vip');
    await vip.getByRole('button', { name: 'See plans' }).click();
    await page.waitForURL(/\/en\/mall$/);

    // The first-plan offer shows on the plans it applies to, at the server's discounted price.
    const discount = await post('/api/v1/payment/assets/discount');
    const offerItem = discount.items.find((i) => i.product_id === 'full-month');
    assert.ok(discount.eligible && offerItem, JSON.stringify(discount));
    const full = planCard('full', 'month');
    await full.waitFor();
    assert.ok((await full.textContent()).includes(`${(offerItem.discounted_price / 100).toFixed(2)} / month`), await full.textContent());
    assert.ok((await full.locator('s').textContent()).includes((offerItem.price / 100).toFixed(2)));
    assert.equal(await full.getAttribute('data-current'), 'false');
    assert.ok((await page.getByTestId('credit-pack').count()) > 0, 'credit packs are on sale');
    await page.getByRole('button', { name: 'Yearly' }).click();
    await planCard('full', 'year').waitFor();
    await page.getByRole('button', { name: 'Monthly' }).click();
    await full.waitFor();
    // The half-price popup is not asked for again today.
    let asked = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/payment/discount/popup-info')) asked++;
    });
    await page.reload();
    await full.waitFor();
    // The account is known again (the popup is asked for once it is) and the page has settled.
    await page.getByTestId('account-name').filter({ hasText: 'Mall Buyer' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(asked, 0, 'asked once a day');
    assert.equal(await page.getByRole('dialog').count(), 0);
    await shot('mall');
  });

  test('buys the full monthly plan: the fake checkout, #pay, the return page says paid', async () => {
    const discount = await post('/api/v1/payment/assets/discount');
    const offerItem = discount.items.find((i) => i.product_id === 'full-month');
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/payment/order/create-sub'));
    await planCard('full', 'month').getByRole('button', { name: 'Subscribe' }).click();
    const response = await created;
    // Ordered at the first-plan price the page showed, for the page's locale.
    const sentBody = JSON.parse(response.request().postData() ?? '{}');
    assert.deepEqual(sentBody, { product_id: 'full-month', use_discount: true, locale: 'en' });

    // The browser left for the provider's hosted page (so the answer's body
    // is gone with the page: the order is read back from the buy log).
    await page.waitForURL(`${stripe.url}/pay/**`);
    const log = await post('/api/v1/payment/buy/log', {});
    const order = log.items[0];
    orderId = order.order_id;
    assert.equal(order.status, 'pending');
    assert.equal(order.amount, offerItem.discounted_price);
    assert.ok(order.checkout_url.startsWith(`${stripe.url}/pay/`), order.checkout_url);
    assert.ok(page.url().startsWith(order.checkout_url), page.url());
    await page.locator('#pay').click();

    await page.waitForURL((u) => u.pathname === '/en/mall/return' && u.searchParams.get('order_id') === orderId);
    await page.locator('[data-testid="order-status"][data-status="paid"]').waitFor({ timeout: 30_000 });
    await page.getByText(TEXT.paid).waitFor();
    assert.match(await page.getByTestId('order-granted').textContent(), /is now active\.$/);
    await shot('mall-return');

    const status = await post('/api/v1/payment/order/status', { order_id: orderId });
    assert.equal(status.status, 'paid');
    assert.equal(status.kind, 'subscription');
    assert.equal(status.product_id, 'full-month');
    const info = await post('/api/v1/account/payment-info');
    assert.equal(info.activeState, true, JSON.stringify(info));
    // The checkout session was opened for this order, as a subscription.
    const { requests } = await stripe.requests();
    const session = requests.find((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');
    assert.ok(session, JSON.stringify(requests.map((r) => `${r.method} ${r.path}`)));
    assert.equal(session.form.client_reference_id, orderId);
    assert.equal(session.form.mode, 'subscription');

    // The header shows the membership without a reload.
    const badge = page.getByTestId('vip-badge');
    await badge.filter({ hasText: /^VIP$/ }).waitFor();
    assert.equal(await badge.getAttribute('data-vip'), 'true');
    assert.equal(await page.getByTestId('subscription-banner').count(), 0);
  });

  test('the mall marks the current plan; the subscription page shows it active', async () => {
    await page.goto(new URL('/en/mall', backend.url).href);
    const full = planCard('full', 'month');
    await full.locator('.mall-tag--current').waitFor();
    assert.equal(await full.getAttribute('data-current'), 'true');
    await full.getByRole('link', { name: 'Manage' }).click();
    await page.waitForURL(/\/en\/mall\/subscription$/);
    const sub = page.getByTestId('subscription');
    await sub.waitFor();
    assert.equal(await sub.getAttribute('data-status'), 'active');
    assert.equal(await sub.getAttribute('data-auto-renew'), 'true');

    await page.goto(new URL('/en/mall/orders', backend.url).href);
    const row = page.locator(`[data-testid="order-row"][data-order-id="${orderId}"]`);
    await row.waitFor();
    assert.equal(await row.locator('summary [data-status]').getAttribute('data-status'), 'paid');
  });

  test('the generator has the member perks: fast lane, 4 images, no LoRA limit', async () => {
    await page.goto(new URL('/en/create', backend.url).href);
    await page.getByRole('tab', { name: 'Text to image' }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('heading', { name: 'Text to image' }).waitFor();
    await page.locator('[data-testid="gen-lane"][data-lane="fast"]').filter({ hasText: 'Fast lane' }).waitFor();
    assert.equal(await panel.getByLabel('Images', { exact: true }).first().inputValue(), '4');
    assert.equal(await page.getByText(TEXT.loraFreeLimit).count(), 0);

    // Four LoRAs, one more than a free account may use: no limit dialog.
    await panel.getByLabel('Base model').selectOption('sdxl-base-1.0');
    const add = panel.getByLabel('Add a LoRA');
    for (let i = 0; i < 4; i++) await add.selectOption({ index: 1 });
    assert.equal(await panel.getByTestId('lora-picker').locator('li').count(), 4);
    assert.equal(await page.getByRole('dialog').count(), 0, 'no LoRA limit for a member');

    await panel.getByLabel('Prompt', { exact: true }).fill('a golden lighthouse under the northern lights');
    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/text-to-img') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const sent = JSON.parse((await response).request().postData() ?? '{}');
    const body = await (await response).json();
    assert.equal(body.status.code, 10000, JSON.stringify(body.status));
    assert.equal(sent.meta?.n_iter, 4, JSON.stringify(sent.meta));
    const task = await taskEnd(post, body.data.id);
    assert.equal(task.status, 3, `task ended: ${JSON.stringify(task)}`);
    assert.equal(task.img_uris.length, 4, 'a member makes 4 images');
    assert.equal(await page.locator('[data-testid="gen-problem"]').count(), 0);
  });

  test('wears an avatar ornament bought with credits: the shop, its preview, the confirm, the header', async () => {
    // An operator adds the ornament with its picture (uploaded like any file).
    const op = await apiPost(backend.url, '/api/v1/account/sign-up', { email: OPERATOR, password: 'mall-operator-password-1', name: 'Operator' });
    const picture = await uploadPng(backend.url, await ringPng(page), op.token, 'halo.png');
    const halo = await apiPost(
      backend.url,
      '/api/v1/admin/ornament/upsert',
      { slot: 'avatar', name: 'Golden halo', description: 'A ring of light', price: 120, image: { url: picture } },
      op.token,
    );
    const before = (await post('/api/v1/payment/assets/get')).available;

    await page.goto(new URL('/en/ornaments', backend.url).href);
    const tile = page.locator(`[data-testid="ornament-item"][data-id="${halo.ornament_id}"]`);
    await tile.click();
    // The live preview puts it on the user's own avatar before buying.
    const preview = page.getByTestId('ornament-preview').getByTestId('ornament-overlay');
    assert.equal(await preview.getAttribute('src'), halo.image.url);
    await tile.getByRole('button', { name: 'Buy' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('buy-summary').filter({ hasText: `It costs 120 credits.` }).waitFor();
    await dialog.getByRole('button', { name: 'Pay 120 credits' }).click();
    await tile.getByRole('button', { name: 'Wear' }).click();
    await tile.getByRole('button', { name: 'Take off' }).waitFor();
    // Worn: the header's avatar shows it, and the ledger took its price once.
    const header = page.locator('header').getByTestId('ornament-overlay');
    await header.waitFor();
    assert.equal(await header.getAttribute('src'), halo.image.url);
    assert.equal((await post('/api/v1/payment/assets/get')).available, before - 120);
    await shot('ornaments');
  });

  test('no page errors or CSP violations happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
