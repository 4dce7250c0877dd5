// English strings of account mail (issue 21): the server's mail keys
// (protocol/src/error.rs 20003, 20110-20112), the login popup's verify step
// and banner, the forgot and reset pages, and the settings section for
// e-mail and password; spread into en.ts.
export const en_mail = {
  // Server keys.
  MailUnavailable: 'This server cannot send e-mail. Please contact the operator.',
  VerifyCodeExpired: 'This code has expired or was used up. Ask for a new one.',
  EmailAlreadyVerified: 'Your e-mail address is already verified.',
  // Verify step and banner.
  'mail.verifyTitle': 'Verify your e-mail',
  'mail.verifyHint': 'We sent a 6-digit code to {email}. Enter it below.',
  'mail.code': 'Verification code',
  'mail.verifySubmit': 'Verify',
  'mail.resend': 'Send a new code',
  'mail.resent': 'A new code is on its way.',
  'mail.later': 'Later',
  'mail.verified': 'Your e-mail address is verified.',
  'mail.banner': 'Please verify your e-mail address.',
  'mail.bannerAction': 'Verify now',
  // Forgot and reset.
  'mail.forgotLink': 'Forgot your password?',
  'mail.forgotTitle': 'Reset your password',
  'mail.forgotHint': 'Enter your account’s e-mail address and we will send you a link to choose a new password.',
  'mail.forgotSubmit': 'Send the link',
  'mail.forgotSent': 'If an account uses {email}, a link to reset its password is on its way. It works once, for one hour.',
  'mail.resetTitle': 'Choose a new password',
  'mail.newPassword': 'New password',
  'mail.resetSubmit': 'Set the password',
  'mail.resetDone': 'Your password was changed and every session was signed out. You can log in now.',
  'mail.resetNoToken': 'This page needs the link from the e-mail.',
  'mail.logIn': 'Log in',
  // Settings: e-mail and password.
  'mail.sectionTitle': 'E-mail and password',
  'mail.currentEmail': 'Current e-mail: {email}',
  'mail.verifiedBadge': 'verified',
  'mail.unverifiedBadge': 'not verified',
  'mail.newEmail': 'New e-mail',
  'mail.currentPassword': 'Current password',
  'mail.changeEmailSubmit': 'Send a code to the new address',
  'mail.changeEmailConfirm': 'Change the e-mail',
  'mail.emailChanged': 'Your e-mail address is now {email}.',
  'mail.changePasswordSubmit': 'Change the password',
  'mail.passwordChanged': 'Password changed. {count} other sessions were signed out.',
} as const;
