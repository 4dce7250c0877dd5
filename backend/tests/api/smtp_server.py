"""A real SMTP server for the API tests (aiosmtpd, from PyPI).

Usage: python smtp_server.py MAILDIR [REFUSE_FIRST [PORT]]
Listens on 127.0.0.1 on PORT (a free port when absent or 0) and prints "PORT <n>" once ready.
Each accepted message is parsed with Python's email package and written to
MAILDIR as <n>.json: {"to", "subject", "message_id", "text", "html"}
(written to a temporary name first, then renamed, so a reader never sees
half a mail).
The first REFUSE_FIRST messages are refused with 451 (a temporary failure),
as a busy or greylisting server does; each refusal leaves a marker file
refused-<n> in MAILDIR.
"""
import email
import email.policy
import json
import os
import socket
import sys

from aiosmtpd.controller import Controller


class Handler:
    def __init__(self, maildir, refuse_first):
        self.maildir = maildir
        self.refuse_left = refuse_first
        self.count = 0
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_left > 0:
            self.refuse_left -= 1
            self.refused += 1
            # A marker per refusal, so a test can tell a refusal happened.
            open(os.path.join(self.maildir, f"refused-{self.refused}"), "w").close()
            return "451 4.3.0 Try again later"
        self.count += 1
        msg = email.message_from_bytes(
            envelope.original_content or envelope.content, policy=email.policy.default
        )
        text = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        mail = {
            "to": envelope.rcpt_tos,
            "from": str(msg["From"]),
            "subject": str(msg["Subject"]),
            "message_id": str(msg["Message-ID"]),
            "text": text.get_content() if text else "",
            "html": html.get_content() if html else "",
        }
        tmp = os.path.join(self.maildir, f".{self.count}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(mail, f)
        os.rename(tmp, os.path.join(self.maildir, f"{self.count}.json"))
        return "250 OK"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    maildir = sys.argv[1]
    refuse_first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    port = port or free_port()
    controller = Controller(Handler(maildir, refuse_first), hostname="127.0.0.1", port=port)
    controller.start()
    print(f"PORT {port}", flush=True)
    try:
        # Runs until the test kills it or closes stdin.
        sys.stdin.read()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
