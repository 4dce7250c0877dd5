#!/usr/bin/env python3
"""A fake Stripe for tests, following Stripe's documented API: Checkout
Sessions with a hosted page, coupons, products, subscriptions, the billing
portal, and signed webhook events (`Stripe-Signature: t=..,v1=..`).

    python3 tests/fakes/stripe_fake.py --port 0 --api-key sk_test_x \
        --webhook-secret whsec_x [--webhook-url URL] [--api-version basil|legacy]

prints `listening on PORT` once ready. Test controls live under `/_test/`
(see tests/fakes/README.md). Standard library only."""

import argparse
import base64
import hashlib
import hmac
import json
import os
import queue
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakelib as F  # noqa: E402
from stripe_billing import (  # noqa: E402
    DAY, PERIOD, Billing, apply_coupon, error, mask, missing)


class Stripe(Billing):
    """The fake's whole state; one lock guards it, never held while sending."""

    def __init__(self, api_key, webhook_secret, webhook_url, api_version):
        self.api_key = api_key
        self.webhook_secret = webhook_secret
        self.webhook_url = webhook_url
        self.api_version = api_version
        self.port = 0
        self.lock = threading.RLock()
        self.send_lock = threading.Lock()
        self.log = F.Log()
        self.idem = F.Idempotency()
        self.sessions, self.coupons, self.products = {}, {}, {}
        self.customers, self.subs, self.intents = {}, {}, {}
        self.charges, self.disputes, self.portals = {}, {}, {}
        self._session_input = {}
        self.outbox = queue.Queue()
        threading.Thread(target=self._sender, daemon=True).start()

    # ---- events -------------------------------------------------------

    def event(self, kind, obj, previous=None):
        ev = {
            "id": F.new_id("evt_"),
            "object": "event",
            "api_version": "2025-03-31.basil" if self.api_version == "basil" else "2024-06-20",
            "created": F.now(),
            "data": {"object": json.loads(json.dumps(obj))},
            "livemode": False,
            "pending_webhooks": 1,
            "request": {"id": None, "idempotency_key": None},
            "type": kind,
        }
        if previous:
            ev["data"]["previous_attributes"] = previous
        return ev

    def signature(self, payload, t, secret=None):
        key = (secret or self.webhook_secret).encode()
        mac = hmac.new(key, b"%d." % t + payload, hashlib.sha256).hexdigest()
        return "t=%d,v1=%s" % (t, mac)

    def deliver(self, ev, how="good"):
        """Sends one event now; answers its log entry."""
        payload = json.dumps(ev).encode()
        t = F.now() - (600 if how == "stale" else 0)
        headers = {}
        if how == "bad":
            headers["Stripe-Signature"] = self.signature(payload, t, "whsec_wrong")
        elif how != "missing":
            headers["Stripe-Signature"] = self.signature(payload, t)
        with self.send_lock:
            status, answer = F.post_webhook(self.webhook_url, payload, headers)
        entry = {"id": ev.get("id"), "type": ev.get("type"), "status": status,
                 "answer": answer[:500], "payload": payload.decode(),
                 "signature": headers.get("Stripe-Signature"), "sent": how}
        self.log.event(entry)
        return entry

    def send_now(self, events):
        return [self.deliver(ev) for ev in events]

    def send_later(self, events):
        """Events caused by API calls arrive after the call answered, as at
        Stripe; `POST /_test/flush` waits for them."""
        for ev in events:
            self.outbox.put(ev)

    def _sender(self):
        while True:
            ev = self.outbox.get()
            try:
                self.deliver(ev)
            finally:
                self.outbox.task_done()

    # ---- API ----------------------------------------------------------

    def api(self, method, path, form):
        parts = [p for p in path.split("/") if p][1:]  # after "v1"
        with self.lock:
            if parts == ["checkout", "sessions"] and method == "POST":
                return self.create_session(form)
            if parts[:2] == ["checkout", "sessions"] and len(parts) == 3 and method == "GET":
                s = self.sessions.get(parts[2])
                return (200, s) if s else missing("checkout.session", parts[2])
            if parts == ["coupons"] and method == "POST":
                return self.create_coupon(form)
            if parts == ["products"] and method == "POST":
                if not form.get("name"):
                    return error(400, "Missing required param: name.", param="name")
                p = {"id": F.new_id("prod_", 14), "object": "product", "name": form["name"],
                     "metadata": form.get("metadata") or {}, "active": True,
                     "created": F.now()}
                self.products[p["id"]] = p
                return 200, p
            if parts[:1] == ["subscriptions"] and len(parts) == 2:
                sub = self.subs.get(parts[1])
                if not sub:
                    return missing("subscription", parts[1])
                if method == "GET":
                    return 200, self.sub_view(sub)
                if method == "DELETE":
                    return self.cancel_sub(sub)
                if method == "POST":
                    return self.update_sub(sub, form)
            if parts == ["billing_portal", "sessions"] and method == "POST":
                cus = form.get("customer")
                if not cus:
                    return error(400, "Missing required param: customer.", param="customer")
                if cus not in self.customers:
                    return missing("customer", cus)
                p = {"id": F.new_id("bps_"), "object": "billing_portal.session",
                     "customer": cus, "return_url": form.get("return_url"),
                     "created": F.now(), "livemode": False}
                p["url"] = "http://127.0.0.1:%d/portal/%s" % (self.port, p["id"])
                self.portals[p["id"]] = p
                return 200, p
        return error(404, "Unrecognized request URL (%s: %s)." % (method, path))

    def create_coupon(self, form):
        pct, off = form.get("percent_off"), form.get("amount_off")
        if bool(pct) == bool(off):
            return error(400, "Coupons must have either percent_off or amount_off.")
        if off and not form.get("currency"):
            return error(400, "You must pass currency when passing amount_off.",
                         param="currency")
        c = {"id": form.get("id") or F.new_id("", 8), "object": "coupon",
             "percent_off": float(pct) if pct else None,
             "amount_off": int(off) if off else None,
             "currency": form.get("currency") if off else None,
             "duration": form.get("duration", "once"),
             "max_redemptions": int(form["max_redemptions"]) if form.get("max_redemptions") else None,
             "times_redeemed": 0, "valid": True, "metadata": form.get("metadata") or {},
             "created": F.now()}
        self.coupons[c["id"]] = c
        return 200, c

    def create_session(self, f):
        mode = f.get("mode")
        if mode not in ("payment", "subscription", "setup"):
            return error(400, "Missing required param: mode.", param="mode")
        items = f.get("line_items")
        if not isinstance(items, list) or not items:
            return error(400, "line_items is required in %s mode." % mode, param="line_items")
        if not f.get("success_url"):
            return error(400, "Missing required param: success_url.", param="success_url")
        if f.get("customer") and f.get("customer_email"):
            return error(400, "You may only specify one of these parameters: customer, customer_email.")
        if f.get("customer") and f["customer"] not in self.customers:
            return missing("customer", f["customer"])
        if mode == "payment" and "subscription_data" in f:
            return error(400, "You can not pass `subscription_data` in `payment` mode.",
                         param="subscription_data")
        if mode == "subscription" and "payment_intent_data" in f:
            return error(400, "You can not pass `payment_intent_data` in `subscription` mode.",
                         param="payment_intent_data")
        total, currency, names = 0, None, []
        for i, li in enumerate(items):
            pd = li.get("price_data") or {}
            try:
                unit, qty = int(pd["unit_amount"]), int(li.get("quantity", "1"))
                currency = pd["currency"]
                names.append(pd["product_data"]["name"])
            except (KeyError, ValueError, TypeError):
                return error(400, "Invalid line_items[%d]: price_data needs currency, "
                                  "unit_amount and product_data[name]." % i,
                             param="line_items[%d][price_data]" % i)
            recurring = pd.get("recurring")
            if mode == "subscription" and not recurring:
                return error(400, "You must provide at least one recurring price in "
                                  "`subscription` mode when using prices.")
            if mode == "payment" and recurring:
                return error(400, "You specified `payment` mode but passed a recurring price.")
            if recurring and recurring.get("interval") not in ("day", "week", "month", "year"):
                return error(400, "Invalid recurring[interval].", param="recurring[interval]")
            total += unit * qty
        subtotal = total
        discounts = []
        for d in f.get("discounts") or []:
            c = self.coupons.get(d.get("coupon"))
            if not c:
                return missing("coupon", d.get("coupon"))
            discounts.append(c["id"])
            total = apply_coupon(total, c)
        sid = F.new_id("cs_test_", 56)
        s = {
            "id": sid, "object": "checkout.session", "mode": mode,
            "client_reference_id": f.get("client_reference_id"),
            "metadata": f.get("metadata") or {}, "customer": f.get("customer"),
            "customer_email": f.get("customer_email"), "currency": currency,
            "amount_subtotal": subtotal, "amount_total": total,
            "payment_status": "unpaid", "status": "open", "payment_intent": None,
            "subscription": None, "invoice": None,
            "success_url": f["success_url"], "cancel_url": f.get("cancel_url"),
            "discounts": [{"coupon": c} for c in discounts],
            "created": F.now(), "expires_at": F.now() + DAY, "livemode": False,
            "url": "http://127.0.0.1:%d/pay/%s" % (self.port, sid),
        }
        self.sessions[sid] = s
        self._session_input[sid] = {"items": items, "form": f, "names": names}
        return 200, s

    # ---- hosted page --------------------------------------------------

    def pay(self, sid, action):
        """Answers (events, redirect url) or (None, error text)."""
        with self.lock:
            s = self.sessions.get(sid)
            if not s:
                return None, "no such session"
            if s["status"] != "open":
                return None, "this session is %s" % s["status"]
            if action == "cancel":
                return [], s["cancel_url"] or s["success_url"]
            inp = self._session_input[sid]
            f = inp["form"]
            cus = s["customer"]
            if not cus:
                cus = F.new_id("cus_", 14)
                self.customers[cus] = {"id": cus, "object": "customer",
                                       "email": s["customer_email"], "created": F.now()}
            s["customer"] = cus
            for d in s["discounts"]:
                self.coupons[d["coupon"]]["times_redeemed"] += 1
            events = []
            if s["mode"] == "payment":
                meta = (f.get("payment_intent_data") or {}).get("metadata") or {}
                s["payment_intent"] = self.new_intent(s["amount_total"], s["currency"], cus, meta)
            else:
                pd = inp["items"][0]["price_data"]
                interval = pd["recurring"]["interval"]
                start = F.now()
                prod = F.new_id("prod_", 14)
                self.products[prod] = {"id": prod, "object": "product",
                                       "name": inp["names"][0], "metadata": {}}
                sub = {
                    "id": F.new_id("sub_", 24), "object": "subscription",
                    "customer": cus, "status": "active", "cancel_at_period_end": False,
                    "canceled_at": None, "ended_at": None, "pause_collection": None,
                    "metadata": dict((f.get("subscription_data") or {}).get("metadata") or {}),
                    "discounts": [d["coupon"] for d in s["discounts"]],
                    "created": start, "start_date": start, "latest_invoice": None,
                    "items": {"object": "list", "data": [{
                        "id": F.new_id("si_", 14), "object": "subscription_item",
                        "quantity": 1, "current_period_start": start,
                        "current_period_end": start + PERIOD.get(interval, 30 * DAY),
                        "price": {"id": F.new_id("price_"), "object": "price",
                                  "product": prod, "currency": pd["currency"],
                                  "unit_amount": int(pd["unit_amount"]),
                                  "recurring": {"interval": interval}},
                    }]},
                }
                self.subs[sub["id"]] = sub
                pi = self.new_intent(s["amount_total"], s["currency"], cus, dict(sub["metadata"]))
                inv = self.invoice(sub, "subscription_create", s["amount_total"], pi=pi)
                self.consume_once_discounts(sub)
                s["subscription"], s["invoice"] = sub["id"], inv["id"]
                events.append(self.event("customer.subscription.created", self.sub_view(sub)))
                events.append(self.event("invoice.paid", inv))
            s["status"], s["payment_status"] = "complete", "paid"
            events.append(self.event("checkout.session.completed", s))
            url = s["success_url"].replace("{CHECKOUT_SESSION_ID}", sid)
        return events, url

    # ---- test controls ------------------------------------------------

    def control(self, parts, body):
        """`/_test/...` actions; answers (status, json)."""
        with self.lock:
            if parts == ["config"]:
                if "webhook_url" in body:
                    self.webhook_url = body["webhook_url"]
                return 200, {"webhook_url": self.webhook_url}, []
            if len(parts) == 3 and parts[0] == "subscriptions":
                sub = self.subs.get(parts[1])
                if not sub:
                    return 404, {"error": "no such subscription"}, []
                return (200, {}, self.sub_action(sub, parts[2]))
            if len(parts) == 3 and parts[0] == "payment_intents":
                pi = self.intents.get(parts[1])
                if not pi:
                    return 404, {"error": "no such payment_intent"}, []
                ch = self.charges[pi["latest_charge"]]
                if parts[2] == "refund":
                    left = ch["amount"] - ch["amount_refunded"]
                    amount = int(body.get("amount") or left)
                    if amount <= 0 or amount > left:
                        return 400, {"error": "nothing left to refund"}, []
                    ch["amount_refunded"] += amount
                    ch["refunded"] = ch["amount_refunded"] == ch["amount"]
                    return 200, {}, [self.event("charge.refunded", ch)]
                if parts[2] == "dispute":
                    du = {"id": F.new_id("du_"), "object": "dispute", "amount": ch["amount"],
                          "currency": ch["currency"], "charge": ch["id"],
                          "payment_intent": pi["id"], "reason": body.get("reason", "fraudulent"),
                          "status": "needs_response", "created": F.now()}
                    ch["disputed"] = True
                    self.disputes[du["id"]] = du
                    return 200, {"dispute": du["id"]}, [self.event("charge.dispute.created", du)]
            if len(parts) == 3 and parts[0] == "disputes" and parts[2] == "close":
                du = self.disputes.get(parts[1])
                if not du:
                    return 404, {"error": "no such dispute"}, []
                du["status"] = "won" if body.get("won") else "lost"
                return 200, {}, [self.event("charge.dispute.closed", du)]
        return 404, {"error": "unknown test control"}, []


def make_handler(st):
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def route(self, method):
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            raw = F.read_body(self)
            if path.startswith("/_test/"):
                return self.test_route(method, path, raw)
            if path.startswith("/pay/"):
                return self.pay_page(method, path.split("/")[2], raw)
            if path.startswith("/portal/"):
                p = st.portals.get(path.split("/")[2])
                if not p:
                    return F.send_html(self, 404, "no such portal session")
                _, esc = F.html_page("", "")
                body = ("<h1>Billing portal</h1><p id='customer'>%s</p>"
                        "<a id='return' href='%s'>Return</a>"
                        % (esc(p["customer"]), esc(p["return_url"] or "/")))
                return F.send_html(self, 200, F.html_page("Billing portal", body)[0])
            if not path.startswith("/v1/"):
                return F.send_json(self, *error(404, "Unrecognized request URL (%s: %s)."
                                                % (method, path)))
            form = F.parse_form(raw) if raw else {}
            idem = self.headers.get("Idempotency-Key")
            st.log.request({"method": method, "path": path, "form": form,
                            "idempotency_key": idem,
                            "content_type": self.headers.get("Content-Type")})
            auth = self.headers.get("Authorization", "")
            given = ""
            if auth.startswith("Bearer "):
                given = auth[7:]
            elif auth.startswith("Basic "):  # Stripe also takes the key as a user name
                try:
                    given = base64.b64decode(auth[6:]).decode().split(":")[0]
                except ValueError:
                    given = ""
            if not hmac.compare_digest(given.encode(), st.api_key.encode()):
                msg = ("Invalid API Key provided: %s" % mask(given)) if given else \
                    "You did not provide an API key."
                return F.send_json(self, *error(401, msg))
            if idem and method == "POST":
                key = (given, idem)
                with st.idem.lock_for(key):
                    seen = st.idem.get(key)
                    if seen:
                        if seen[0] != (path, raw):
                            return F.send_json(self, *error(
                                400, "Keys for idempotent requests can only be used with "
                                     "the same parameters they were first used with.",
                                kind="idempotency_error"))
                        return F.send_json(self, seen[1], seen[2],
                                           {"Idempotent-Replayed": "true"})
                    status, obj = st.api(method, path, form)
                    if status < 500:
                        st.idem.put(key, ((path, raw), status, obj))
                    return F.send_json(self, status, obj)
            status, obj = st.api(method, path, form)
            return F.send_json(self, status, obj)

        def pay_page(self, method, sid, raw):
            if method == "GET":
                s = st.sessions.get(sid)
                if not s:
                    return F.send_html(self, 404, "no such session")
                name = st._session_input[sid]["names"][0]
                _, esc = F.html_page("", "")
                body = ("<h1 id='product'>%s</h1><p id='amount'>%s %s</p><p id='status'>%s</p>"
                        "<form method='post'><button id='pay' name='action' value='pay'>Pay"
                        "</button><button id='cancel' name='action' value='cancel'>Cancel"
                        "</button></form>" % (esc(name), s["amount_total"],
                                               esc(s["currency"].upper()), esc(s["status"])))
                return F.send_html(self, 200, F.html_page("Pay " + name, body)[0])
            action = F.parse_form(raw).get("action", "pay")
            events, url = st.pay(sid, action)
            if events is None:
                return F.send_html(self, 409, url)
            st.send_now(events)
            return F.redirect(self, url)

        def test_route(self, method, path, raw):
            parts = [p for p in path.split("/") if p][1:]
            if method == "GET" and parts == ["requests"]:
                return F.send_json(self, 200, {"requests": st.log.snapshot()[0]})
            if method == "GET" and parts == ["events"]:
                return F.send_json(self, 200, {"events": st.log.snapshot()[1]})
            try:
                body = F.read_json(self, raw)
            except ValueError:
                return F.send_json(self, 400, {"error": "body is not JSON"})
            if parts == ["flush"]:
                st.outbox.join()
                return F.send_json(self, 200, {"events": st.log.snapshot()[1]})
            if parts == ["send"]:
                ev = body.get("event")
                if not isinstance(ev, dict):
                    return F.send_json(self, 400, {"error": "event required"})
                ev.setdefault("id", F.new_id("evt_"))
                ev.setdefault("created", F.now())
                ev.setdefault("object", "event")
                entry = st.deliver(ev, body.get("signature", "good"))
                return F.send_json(self, 200, {"events": [entry]})
            status, obj, events = st.control(parts, body)
            obj["events"] = st.send_now(events)
            return F.send_json(self, status, obj)

        def do_GET(self):
            self.route("GET")

        def do_POST(self):
            self.route("POST")

        def do_DELETE(self):
            self.route("DELETE")

    return H


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--webhook-secret", required=True)
    ap.add_argument("--webhook-url", default="")
    ap.add_argument("--api-version", choices=["basil", "legacy"], default="basil",
                    help="basil: 2025-03-31+ field layout; legacy: 2024-06-20")
    a = ap.parse_args()
    st = Stripe(a.api_key, a.webhook_secret, a.webhook_url, a.api_version)
    server = ThreadingHTTPServer((a.host, a.port), make_handler(st))
    server.daemon_threads = True
    st.port = server.server_address[1]
    F.announce(server)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
