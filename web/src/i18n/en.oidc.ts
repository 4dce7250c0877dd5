// English strings of third-party sign-in (issue 21 item 2): the server's
// Oidc* keys (protocol/src/error.rs 20120-20129), the popup's provider
// buttons, the callback page and the linked-accounts settings section.
export const en_oidc = {
  OidcProviderUnknown: 'This sign-in provider is not available.',
  OidcStateInvalid: 'This sign-in attempt expired or was already used. Please start again.',
  OidcTokenInvalid: 'The sign-in provider’s answer could not be verified.',
  OidcTokenExpired: 'The sign-in provider’s answer has expired. Please start again.',
  OidcNonceMismatch: 'The sign-in provider’s answer belongs to another attempt. Please start again.',
  OidcProviderError: 'The sign-in provider failed. Please try again later.',
  OidcEmailTaken:
    'An account with this e-mail address already exists. Log in to it, then link this provider in the settings.',
  OidcIdentityTaken: 'This provider account is already linked to another Easel account.',
  OidcLastSignIn: 'This is the last way to sign in to your account: set a password or link another provider first.',
  OidcNotLinked: 'This provider is not linked to your account.',
  OidcNotThisAccount: 'Sign in with the provider account that is linked to this account.',
  'oidc.or': 'or',
  'oidc.continueWith': 'Continue with {provider}',
  'oidc.callbackTitle': 'Signing you in…',
  'oidc.callbackFailed': 'Sign-in did not complete',
  'oidc.denied': 'The provider did not sign you in.',
  'oidc.backHome': 'Back to the home page',
  'oidc.linked.title': 'Linked accounts',
  'oidc.linked.hint': 'Sign in with these providers as well as your password.',
  'oidc.linked.none': 'No provider is linked.',
  'oidc.linked.since': 'linked {date}',
  'oidc.linked.link': 'Link {provider}',
  'oidc.linked.unlink': 'Unlink',
} as const;
