#!/usr/bin/env python3
"""A fake Adyen Checkout API (v71) for tests, following Adyen's documented
API: Pay by Link with a hosted page, /paymentMethods, /payments/details
(3-D Secure 2 results) and HMAC-signed standard notifications.

    python3 tests/fakes/adyen_fake.py --port 0 --api-key AQE_test \
        --hmac-key 44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056 \
        [--merchant-account EaselECOM] [--webhook-url URL]

prints `listening on PORT` once ready. Test controls live under `/_test/`
(see tests/fakes/README.md). Standard library only."""

import argparse
import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakelib as F  # noqa: E402


def psp_reference():
    # Adyen's PSP references are 16 alphanumeric characters.
    return F.new_id("", 16).upper()


def adyen_error(status, code, message, kind="validation"):
    return status, {"status": status, "errorCode": code, "message": message,
                    "errorType": kind, "pspReference": psp_reference()}


def signing_string(item):
    amount = item.get("amount") or {}
    value = amount.get("value")
    return ":".join([
        item.get("pspReference", ""), item.get("originalReference", ""),
        item.get("merchantAccountCode", ""), item.get("merchantReference", ""),
        "" if value is None else str(value), amount.get("currency", ""),
        item.get("eventCode", ""), item.get("success", ""),
    ])


def hmac_signature(hex_key, item):
    mac = hmac.new(bytes.fromhex(hex_key), signing_string(item).encode(), hashlib.sha256)
    return base64.b64encode(mac.digest()).decode()


class Adyen:
    def __init__(self, api_key, hmac_key, merchant, webhook_url):
        self.api_key, self.hmac_key = api_key, hmac_key
        self.merchant, self.webhook_url = merchant, webhook_url
        self.port = 0
        self.lock = threading.RLock()
        self.send_lock = threading.Lock()
        self.log = F.Log()
        self.idem = F.Idempotency()
        self.links, self.payments = {}, {}

    def notification(self, code, psp, reference, amount, success=True, original="",
                     extra=None, reason=""):
        item = {
            "additionalData": dict(extra or {}),
            "amount": amount, "eventCode": code,
            "eventDate": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
            "merchantAccountCode": self.merchant, "merchantReference": reference,
            "pspReference": psp, "reason": reason, "success": "true" if success else "false",
            "operations": [], "paymentMethod": "visa",
        }
        if original:
            item["originalReference"] = original
        item["additionalData"]["hmacSignature"] = hmac_signature(self.hmac_key, item)
        return item

    def deliver(self, items, how="good"):
        if how == "bad":
            for it in items:
                it["additionalData"]["hmacSignature"] = base64.b64encode(b"\0" * 32).decode()
        body = {"live": "false",
                "notificationItems": [{"NotificationRequestItem": it} for it in items]}
        payload = json.dumps(body).encode()
        with self.send_lock:
            status, answer = F.post_webhook(self.webhook_url, payload, {})
        entry = {"event_codes": [it["eventCode"] for it in items],
                 "psp_references": [it["pspReference"] for it in items],
                 "status": status, "answer": answer[:500], "payload": payload.decode(),
                 "accepted": answer.strip() == "[accepted]"}
        self.log.event(entry)
        return entry

    def api(self, path, body):
        parts = [p for p in path.split("/") if p]
        if parts[:1] != ["v71"]:
            return adyen_error(404, "000", "Unknown endpoint %s" % path, "configuration")
        with self.lock:
            if parts[1:] == ["paymentLinks"]:
                return self.create_link(body)
            if parts[1:] == ["paymentMethods"]:
                return self.payment_methods(body)
            if parts[1:] == ["payments", "details"]:
                return self.details(body)
        return adyen_error(404, "000", "Unknown endpoint %s" % path, "configuration")

    def create_link(self, b):
        amount = b.get("amount") or {}
        if not isinstance(amount.get("value"), int) or not amount.get("currency"):
            return adyen_error(422, "100", "Required field 'amount' is not provided.")
        if not b.get("merchantAccount"):
            return adyen_error(422, "702", "Required field 'merchantAccount' is null")
        if b["merchantAccount"] != self.merchant:
            return adyen_error(403, "901", "Invalid Merchant Account", "security")
        if not b.get("reference"):
            return adyen_error(422, "130", "Required field 'reference' is not provided.")
        rpm = b.get("recurringProcessingModel")
        if rpm and rpm not in ("CardOnFile", "Subscription", "UnscheduledCardOnFile"):
            return adyen_error(422, "129", "Invalid recurringProcessingModel")
        if rpm and not b.get("shopperReference"):
            return adyen_error(422, "130", "shopperReference is required for recurring.")
        lid = "PL" + F.new_id("", 16).upper()
        link = dict(b)
        link.update({
            "id": lid, "status": "active",
            "expiresAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86400)),
            "url": "http://127.0.0.1:%d/pay/%s" % (self.port, lid),
        })
        self.links[lid] = link
        return 201, link

    def payment_methods(self, b):
        if not b.get("merchantAccount"):
            return adyen_error(422, "702", "Required field 'merchantAccount' is null")
        country = (b.get("countryCode") or "").upper()
        methods = [{"brands": ["visa", "mc", "amex", "cup"], "name": "Cards", "type": "scheme"}]
        if country == "NL":
            methods.append({"name": "iDEAL", "type": "ideal"})
        if country == "CN":
            methods.append({"name": "Alipay", "type": "alipay"})
            methods.append({"name": "WeChat Pay", "type": "wechatpayQR"})
        methods.append({"name": "PayPal", "type": "paypal"})
        return 200, {"paymentMethods": methods}

    def details(self, b):
        d = b.get("details")
        if not isinstance(d, dict) or not d:
            return adyen_error(422, "14_0", "Required field 'details' is not provided.")
        psp = psp_reference()
        if "threeDSResult" in d:
            try:
                res = json.loads(base64.b64decode(d["threeDSResult"] + "=="))
            except ValueError:
                return adyen_error(422, "14_018", "Invalid payload provided")
            if res.get("transStatus") in ("Y", "A"):
                return 200, {"resultCode": "Authorised", "pspReference": psp,
                             "additionalData": {"threeDAuthenticated": "true"}}
            return 200, {"resultCode": "Refused", "pspReference": psp,
                         "refusalReason": "3D Not Authenticated",
                         "refusalReasonCode": "11"}
        if "redirectResult" in d:
            return 200, {"resultCode": "Authorised", "pspReference": psp}
        if "threeDSMethodData" in d or "threeds2.fingerprint" in d:
            return 200, {"resultCode": "ChallengeShopper", "pspReference": psp, "action": {
                "type": "threeDS2", "subtype": "challenge", "paymentMethodType": "scheme",
                "token": base64.b64encode(json.dumps({"acsURL": "http://127.0.0.1:%d/acs"
                                                      % self.port}).encode()).decode(),
                "paymentData": F.new_id("Ab02b4c0!", 16)}}
        return 200, {"resultCode": "RedirectShopper", "pspReference": psp, "action": {
            "type": "redirect", "method": "GET", "paymentMethodType": "scheme",
            "url": "http://127.0.0.1:%d/acs" % self.port}}

    def pay(self, lid, action):
        with self.lock:
            link = self.links.get(lid)
            if not link:
                return None, "no such payment link"
            if link["status"] != "active":
                return None, "this link is %s" % link["status"]
            ret = link.get("returnUrl") or "/"
            if action == "cancel":
                return [], ret
            psp = psp_reference()
            ok = action == "pay"
            extra = {"paymentLinkId": lid}
            if link.get("shopperReference"):
                extra["shopperReference"] = link["shopperReference"]
            if ok and link.get("storePaymentMethodMode") == "enabled":
                extra["recurring.shopperReference"] = link["shopperReference"]
                extra["recurring.recurringDetailReference"] = F.new_id("", 16).upper()
                extra["recurringProcessingModel"] = link.get("recurringProcessingModel", "")
            item = self.notification("AUTHORISATION", psp, link["reference"], link["amount"],
                                     success=ok, extra=extra,
                                     reason="" if ok else "Refused")
            if ok:
                link["status"] = "completed"
                self.payments[psp] = {"amount": link["amount"], "reference": link["reference"],
                                      "refunded": 0}
        return [item], ret

    def control(self, parts, b):
        with self.lock:
            if parts == ["config"]:
                if "webhook_url" in b:
                    self.webhook_url = b["webhook_url"]
                return 200, {"webhook_url": self.webhook_url}, []
            if len(parts) == 2 and parts[0] in ("refund", "chargeback", "chargeback_reversed"):
                p = self.payments.get(parts[1])
                if not p:
                    return 404, {"error": "no such payment"}, []
                amount = dict(p["amount"])
                if parts[0] == "refund":
                    value = int(b.get("amount") or (amount["value"] - p["refunded"]))
                    if value <= 0 or value > amount["value"] - p["refunded"]:
                        return 400, {"error": "nothing left to refund"}, []
                    p["refunded"] += value
                    amount["value"] = value
                    item = self.notification("REFUND", psp_reference(), p["reference"], amount,
                                             original=parts[1])
                else:
                    code = "CHARGEBACK" if parts[0] == "chargeback" else "CHARGEBACK_REVERSED"
                    item = self.notification(code, parts[1], p["reference"], amount,
                                             extra={"chargebackReasonCode": "10.4"})
                return 200, {}, [item]
        return 404, {"error": "unknown test control"}, []


def make_handler(st):
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def route(self, method):
            path = urllib.parse.urlsplit(self.path).path
            raw = F.read_body(self)
            if path.startswith("/_test/"):
                return self.test_route(method, path, raw)
            if path.startswith("/pay/"):
                return self.pay_page(method, path.split("/")[2], raw)
            try:
                body = F.read_json(self, raw)
            except ValueError:
                body = None
            idem = self.headers.get("Idempotency-Key")
            st.log.request({"method": method, "path": path, "body": body,
                            "idempotency_key": idem,
                            "content_type": self.headers.get("Content-Type")})
            given = self.headers.get("X-API-Key", "")
            if not hmac.compare_digest(given.encode(), st.api_key.encode()):
                return F.send_json(self, *adyen_error(401, "000",
                                                      "HTTP Status Response - Unauthorized",
                                                      "security"))
            if method != "POST":
                return F.send_json(self, *adyen_error(405, "000", "Method not allowed",
                                                      "configuration"))
            if not isinstance(body, dict):
                return F.send_json(self, *adyen_error(400, "702", "Unable to parse JSON"))
            if idem:
                with st.idem.lock_for(idem):
                    seen = st.idem.get(idem)
                    if seen:
                        return F.send_json(self, seen[0], seen[1],
                                           {"Idempotent-Replayed": "true"})
                    status, obj = st.api(path, body)
                    if status < 500:
                        st.idem.put(idem, (status, obj))
                    return F.send_json(self, status, obj)
            return F.send_json(self, *st.api(path, body))

        def pay_page(self, method, lid, raw):
            if method == "GET":
                link = st.links.get(lid)
                if not link:
                    return F.send_html(self, 404, "no such payment link")
                _, esc = F.html_page("", "")
                name = link.get("description") or link["reference"]
                body = ("<h1 id='product'>%s</h1><p id='amount'>%s %s</p><p id='status'>%s</p>"
                        "<form method='post'><button id='pay' name='action' value='pay'>Pay"
                        "</button><button id='refuse' name='action' value='refuse'>Refuse"
                        "</button><button id='cancel' name='action' value='cancel'>Cancel"
                        "</button></form>" % (esc(name), link["amount"]["value"],
                                               esc(link["amount"]["currency"]),
                                               esc(link["status"])))
                return F.send_html(self, 200, F.html_page("Pay " + name, body)[0])
            action = F.parse_form(raw).get("action", "pay")
            items, url = st.pay(lid, action)
            if items is None:
                return F.send_html(self, 409, url)
            if items:
                st.deliver(items)
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
            if parts == ["send"]:
                items = body.get("items")
                if not isinstance(items, list):
                    return F.send_json(self, 400, {"error": "items required"})
                signed = [st.notification(i.get("eventCode", "AUTHORISATION"),
                                          i.get("pspReference") or psp_reference(),
                                          i.get("merchantReference", ""),
                                          i.get("amount") or {"value": 0, "currency": "EUR"},
                                          i.get("success", "true") == "true",
                                          i.get("originalReference", ""))
                          for i in items]
                entry = st.deliver(signed, body.get("signature", "good"))
                return F.send_json(self, 200, {"events": [entry]})
            status, obj, items = st.control(parts, body)
            obj["events"] = [st.deliver(items)] if items else []
            return F.send_json(self, status, obj)

        def do_GET(self):
            self.route("GET")

        def do_POST(self):
            self.route("POST")

    return H


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--hmac-key", required=True, help="hex, as Adyen's Customer Area shows it")
    ap.add_argument("--merchant-account", default="EaselECOM")
    ap.add_argument("--webhook-url", default="")
    a = ap.parse_args()
    bytes.fromhex(a.hmac_key)
    st = Adyen(a.api_key, a.hmac_key, a.merchant_account, a.webhook_url)
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
