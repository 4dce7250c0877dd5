// English strings of account deletion and data export (settings › account),
// spread into the English table (en.ts).
export const en_deletion = {
  // Server message keys (protocol/src/error.rs).
  deletionNotPending: 'No deletion of this account is waiting.',
  exportRunning: 'Your export is still being made.',
  exportUnavailable: 'No export of your data is ready.',

  'deletion.section': 'Delete account',
  'deletion.title': 'Delete my account',
  'deletion.hint': 'Your works, chats, characters, models and uploads will be removed, and you will leave your channels. Payments stay on record without your name. You can cancel during the grace period.',
  'deletion.start': 'Delete my account…',
  'deletion.password': 'Password',
  'deletion.email': 'E-mail',
  'deletion.confirm': 'Delete my account',
  'deletion.back': 'Keep my account',
  'deletion.scheduled': 'Your account will be deleted on {date}. You have been signed out everywhere.',
  'deletion.cancelHint': 'Changed your mind? Enter your e-mail and password to cancel the deletion.',
  'deletion.cancel': 'Cancel the deletion',
  'export.title': 'Export my data',
  'export.hint': 'A ZIP file with your data and media. It can be downloaded for a few days.',
  'export.request': 'Export my data',
  'export.running': 'Preparing your export… {progress}%',
  'export.download': 'Download',
  'export.expires': 'Available until {date}.',
  'export.failed': 'The export failed. Please try again.',
  'deletion.loginScheduled': 'This account is scheduled for deletion on {date}.',
  'deletion.cancelAndSignIn': 'Cancel the deletion and sign in',
};
