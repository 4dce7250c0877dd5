"""Subscriptions and billing objects of the fake Stripe (`stripe_fake.py`):
subscriptions, invoices, payment intents and charges, shaped as the chosen
API version documents them, and what renewing, failing or lapsing sends."""

import json

import fakelib as F

DAY = 86400
PERIOD = {"month": 30 * DAY, "year": 365 * DAY}


def error(status, message, kind="invalid_request_error", code=None, param=None):
    err = {"message": message, "type": kind}
    if code:
        err["code"] = code
    if param:
        err["param"] = param
    return status, {"error": err}


def apply_coupon(amount, c):
    if c.get("amount_off"):
        return max(0, amount - c["amount_off"])
    return amount - int(round(amount * (c.get("percent_off") or 0) / 100))


def missing(kind, ident):
    return error(404, "No such %s: '%s'" % (kind, ident), code="resource_missing")


def mask(key):
    return key[:8] + "*" * 4 + key[-4:] if len(key) > 12 else "*" * 4


class Billing:
    """Mixed into the fake's state (`stripe_fake.Stripe`)."""

    # ---- objects ------------------------------------------------------

    def sub_view(self, sub):
        """A subscription as the configured API version shows it."""
        view = json.loads(json.dumps(sub))
        if self.api_version == "legacy":
            view["current_period_start"] = sub["items"]["data"][0]["current_period_start"]
            view["current_period_end"] = sub["items"]["data"][0]["current_period_end"]
            for item in view["items"]["data"]:
                item.pop("current_period_start", None)
                item.pop("current_period_end", None)
        return view

    def new_intent(self, amount, currency, customer, metadata):
        pi, ch = F.new_id("pi_"), F.new_id("ch_")
        self.charges[ch] = {
            "id": ch, "object": "charge", "amount": amount, "amount_captured": amount,
            "amount_refunded": 0, "currency": currency, "customer": customer,
            "paid": True, "payment_intent": pi, "refunded": False, "status": "succeeded",
            "metadata": metadata, "created": F.now(), "disputed": False,
        }
        self.intents[pi] = {
            "id": pi, "object": "payment_intent", "amount": amount,
            "amount_received": amount, "currency": currency, "customer": customer,
            "latest_charge": ch, "metadata": metadata, "status": "succeeded",
            "created": F.now(),
        }
        return pi

    def invoice(self, sub, reason, amount, status="paid", pi=None):
        item = sub["items"]["data"][0]
        start, end = item["current_period_start"], item["current_period_end"]
        inv = {
            "id": F.new_id("in_"), "object": "invoice", "customer": sub["customer"],
            "amount_due": amount, "amount_paid": amount if status == "paid" else 0,
            "amount_remaining": 0 if status == "paid" else amount,
            "attempt_count": 1, "attempted": True, "billing_reason": reason,
            "currency": item["price"]["currency"], "status": status,
            "period_start": start, "period_end": start, "created": F.now(),
            "lines": {"object": "list", "data": [{
                "id": F.new_id("il_"), "object": "line_item", "amount": amount,
                "currency": item["price"]["currency"],
                "period": {"start": start, "end": end},
                "pricing": {"price_details": {"price": item["price"]["id"],
                                              "product": item["price"]["product"]}},
            }]},
        }
        if self.api_version == "legacy":
            inv["subscription"] = sub["id"]
            inv["payment_intent"] = pi
            inv["lines"]["data"][0]["subscription"] = sub["id"]
        else:
            inv["parent"] = {"type": "subscription_details", "subscription_details": {
                "subscription": sub["id"], "metadata": dict(sub["metadata"])}}
            inv["payments"] = {"object": "list", "data": [] if not pi else [{
                "object": "invoice_payment", "payment": {"type": "payment_intent",
                                                         "payment_intent": pi}}]}
        sub["latest_invoice"] = inv["id"]
        return inv

    def next_invoice_amount(self, sub):
        amount = sub["items"]["data"][0]["price"]["unit_amount"]
        for d in sub.get("discounts") or []:
            c = self.coupons.get(d)
            if c:
                amount = apply_coupon(amount, c)
        return amount

    def consume_once_discounts(self, sub):
        sub["discounts"] = [d for d in sub.get("discounts") or []
                            if self.coupons.get(d, {}).get("duration") != "once"]

    def update_sub(self, sub, f):
        if sub["status"] == "canceled":
            return error(400, "A canceled subscription can only update its "
                              "cancellation_details and metadata.")
        prev = {}
        if "cancel_at_period_end" in f:
            prev["cancel_at_period_end"] = sub["cancel_at_period_end"]
            sub["cancel_at_period_end"] = f["cancel_at_period_end"] == "true"
        if "pause_collection" in f:
            prev["pause_collection"] = sub["pause_collection"]
            pc = f["pause_collection"]
            if pc == "":
                sub["pause_collection"] = None
            elif isinstance(pc, dict) and pc.get("behavior") in ("void", "keep_as_draft",
                                                                  "mark_uncollectible"):
                ra = pc.get("resumes_at")
                sub["pause_collection"] = {"behavior": pc["behavior"],
                                           "resumes_at": int(ra) if ra else None}
            else:
                return error(400, "Invalid pause_collection.", param="pause_collection")
        if "discounts" in f:
            ds = []
            for d in f["discounts"] if isinstance(f["discounts"], list) else []:
                if d.get("coupon") not in self.coupons:
                    return missing("coupon", d.get("coupon"))
                ds.append(d["coupon"])
            prev["discounts"] = sub["discounts"]
            sub["discounts"] = ds
        if "items" in f:
            for it in f["items"]:
                item = next((x for x in sub["items"]["data"] if x["id"] == it.get("id")), None)
                if not item:
                    return missing("subscription_item", it.get("id"))
                pd = it.get("price_data") or {}
                if not pd.get("product") or pd["product"] not in self.products:
                    return error(400, "price_data[product] must name an existing product.",
                                 param="items[0][price_data][product]")
                if not pd.get("recurring"):
                    return error(400, "Missing required param: items[0][price_data][recurring].")
                prev["items"] = json.loads(json.dumps(sub["items"]))
                item["price"] = {"id": F.new_id("price_"), "object": "price",
                                 "product": pd["product"], "currency": pd["currency"],
                                 "unit_amount": int(pd["unit_amount"]),
                                 "recurring": {"interval": pd["recurring"]["interval"]}}
        if isinstance(f.get("metadata"), dict):
            prev["metadata"] = dict(sub["metadata"])
            sub["metadata"].update(f["metadata"])
        sub["last_proration_behavior"] = f.get("proration_behavior")
        self.send_later([self.event("customer.subscription.updated", self.sub_view(sub), prev)])
        return 200, self.sub_view(sub)

    def cancel_sub(self, sub):
        if sub["status"] == "canceled":
            return missing("subscription", sub["id"])
        self.end_sub(sub)
        self.send_later([self.event("customer.subscription.deleted", self.sub_view(sub))])
        return 200, self.sub_view(sub)

    def end_sub(self, sub):
        sub["status"] = "canceled"
        sub["canceled_at"] = sub["ended_at"] = F.now()

    def sub_action(self, sub, action):
        item = sub["items"]["data"][0]
        if action == "lapse":
            self.end_sub(sub)
            return [self.event("customer.subscription.deleted", self.sub_view(sub))]
        if action == "fail":
            prev = {"status": sub["status"]}
            sub["status"] = "past_due"
            inv = self.invoice(sub, "subscription_cycle", self.next_invoice_amount(sub), "open")
            return [self.event("invoice.payment_failed", inv),
                    self.event("customer.subscription.updated", self.sub_view(sub), prev)]
        if action == "renew":
            if sub["status"] == "canceled":
                return []
            if sub["cancel_at_period_end"]:
                self.end_sub(sub)
                return [self.event("customer.subscription.deleted", self.sub_view(sub))]
            prev = {"current_period_start": item["current_period_start"],
                    "current_period_end": item["current_period_end"], "status": sub["status"]}
            length = PERIOD.get(item["price"]["recurring"]["interval"], 30 * DAY)
            item["current_period_start"] = item["current_period_end"]
            item["current_period_end"] = item["current_period_start"] + length
            pc = sub["pause_collection"]
            if pc and pc.get("resumes_at") and pc["resumes_at"] <= item["current_period_start"]:
                sub["pause_collection"] = pc = None
            events = []
            if pc:
                inv = self.invoice(sub, "subscription_cycle", 0, "void")
                events.append(self.event("invoice.voided", inv))
            else:
                amount = self.next_invoice_amount(sub)
                pi = self.new_intent(amount, item["price"]["currency"], sub["customer"],
                                     dict(sub["metadata"]))
                inv = self.invoice(sub, "subscription_cycle", amount, pi=pi)
                self.consume_once_discounts(sub)
                sub["status"] = "active"
                events.append(self.event("invoice.paid", inv))
            events.append(self.event("customer.subscription.updated", self.sub_view(sub), prev))
            return events
        return []
