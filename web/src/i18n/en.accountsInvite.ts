// English strings of phone sign-in, invite codes and the membership popup
// (issue 21): the server's keys (protocol/src/error.rs 20130-20139), the
// sign-up form's invite field, the phone form, the settings section with
// the account's own invite code; spread into en.ts.
export const en_accountsInvite = {
  // Server keys.
  PhoneInvalid: 'Enter a valid phone number with its country code, like +44 7911 123456.',
  SmsTooFrequent: 'A code was sent a moment ago. Please wait before asking for another.',
  SmsSendFailed: 'The code could not be sent. Please try again later.',
  PopupParamInvalid: 'This value is not valid.',
  // Sign-up and phone login.
  'login.inviteCode': 'Invite code (optional)',
  'login.tabPhone': 'Phone',
  'login.phone': 'Phone number',
  'login.smsCode': 'Code from the text message',
  'login.sendCode': 'Send code',
  'login.codeSent': 'We sent a code to {phone}.',
  // Settings: the account's invite code.
  'invite.title': 'Invite friends',
  'invite.yourCode': 'Your invite code',
  'invite.link': 'Invite link',
  'invite.copy': 'Copy link',
  'invite.copied': 'Copied',
  'invite.count': 'Accounts created with your code: {n}',
  'invite.credits': 'You receive {inviter} credits and your friend {invitee} credits.',
  'invite.invitedBy': 'You were invited by {name}.',
  // The visitor guide.
  'guide.next': 'Got it',
  'guide.skip': 'Skip the guide',
  // The membership popup.
  'vipPop.title': 'Become a member',
  'vipPop.body': 'Members get an unlimited queue, higher video qualities and more monthly credits.',
  'vipPop.confirm': 'See plans',
  'vipPop.later': 'Not now',
  'vipPop.never': 'Don’t show again',
} as const;
