"""Self-tests of the fakes: `python3 -m unittest discover -s tests/fakes`.
Form parsing, Stripe's signature and Adyen's HMAC against documented values,
and one checkout through a live fake Stripe."""

import hashlib
import hmac
import json
import os
import subprocess
import sys
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import adyen_fake  # noqa: E402
import fakelib  # noqa: E402
import stripe_fake  # noqa: E402


class FormTest(unittest.TestCase):
    def test_nested_keys_and_lists(self):
        body = ("mode=payment&line_items%5B0%5D%5Bprice_data%5D%5Bunit_amount%5D=100"
                "&line_items[0][quantity]=1&metadata[a]=x&pause_collection=")
        self.assertEqual(fakelib.parse_form(body), {
            "mode": "payment",
            "line_items": [{"price_data": {"unit_amount": "100"}, "quantity": "1"}],
            "metadata": {"a": "x"},
            "pause_collection": "",
        })


class SignatureTest(unittest.TestCase):
    def test_stripe_signature_is_hmac_of_t_dot_body(self):
        st = stripe_fake.Stripe("sk", "whsec_test_secret", "", "basil")
        want = hmac.new(b"whsec_test_secret", b'1700000000.{"id":"evt_1"}',
                        hashlib.sha256).hexdigest()
        self.assertEqual(st.signature(b'{"id":"evt_1"}', 1700000000),
                         "t=1700000000,v1=" + want)

    def test_adyen_documented_example(self):
        item = {"pspReference": "7914073381342284", "merchantAccountCode": "TestMerchant",
                "merchantReference": "TestPayment-1407325143704",
                "amount": {"value": 1130, "currency": "EUR"},
                "eventCode": "AUTHORISATION", "success": "true"}
        key = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
        self.assertEqual(adyen_fake.hmac_signature(key, item),
                         "coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=")


class LiveStripeTest(unittest.TestCase):
    def test_checkout_session_round_trip(self):
        proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "stripe_fake.py"), "--port", "0",
             "--api-key", "sk_test_k", "--webhook-secret", "whsec_k"],
            stdout=subprocess.PIPE, text=True)
        try:
            port = int(proc.stdout.readline().split()[-1])
            data = ("mode=payment&client_reference_id=o1&success_url=http://x/ok"
                    "&line_items[0][price_data][currency]=cny"
                    "&line_items[0][price_data][unit_amount]=100"
                    "&line_items[0][price_data][product_data][name]=P"
                    "&line_items[0][quantity]=1").encode()
            req = urllib.request.Request("http://127.0.0.1:%d/v1/checkout/sessions" % port,
                                         data=data, method="POST")
            req.add_header("Authorization", "Bearer sk_test_k")
            with urllib.request.urlopen(req) as r:
                s = json.load(r)
            self.assertEqual(s["client_reference_id"], "o1")
            self.assertEqual(s["amount_total"], 100)
            self.assertTrue(s["url"].endswith("/pay/" + s["id"]))
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    unittest.main()
