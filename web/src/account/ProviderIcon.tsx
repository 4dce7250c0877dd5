import type { ProviderKind } from './oidc';

/** The provider's mark (spec 2 §1: Discord, Google icons; a key for other OpenID providers). */
export function ProviderIcon({ kind }: { kind: ProviderKind }) {
  const common = { width: 18, height: 18, viewBox: '0 0 24 24', 'aria-hidden': true, focusable: false } as const;
  switch (kind) {
    case 'google':
      return (
        <svg {...common}>
          <path fill="#4285F4" d="M22 12.2c0-.7-.1-1.4-.2-2H12v3.8h5.6a4.8 4.8 0 0 1-2.1 3.1v2.6h3.4c2-1.8 3.1-4.5 3.1-7.5z" />
          <path fill="#34A853" d="M12 22c2.8 0 5.2-.9 6.9-2.5l-3.4-2.6c-.9.6-2.1 1-3.5 1-2.7 0-5-1.8-5.8-4.3H2.7v2.7A10 10 0 0 0 12 22z" />
          <path fill="#FBBC05" d="M6.2 13.6a6 6 0 0 1 0-3.8V7.1H2.7a10 10 0 0 0 0 9.1l3.5-2.6z" />
          <path fill="#EA4335" d="M12 6c1.5 0 2.9.5 4 1.5l3-3A10 10 0 0 0 2.7 7.1l3.5 2.7C7 7.8 9.3 6 12 6z" />
        </svg>
      );
    case 'discord':
      return (
        <svg {...common}>
          <path
            fill="#5865F2"
            d="M19.6 5.3A16.4 16.4 0 0 0 15.5 4l-.5 1a15 15 0 0 0-6 0l-.5-1a16.4 16.4 0 0 0-4.1 1.3C1.8 9.2 1.1 13 1.4 16.8A16.6 16.6 0 0 0 6.5 19.4l1-1.7a10.7 10.7 0 0 1-1.6-.8l.4-.3a11.8 11.8 0 0 0 11.4 0l.4.3-1.6.8 1 1.7a16.5 16.5 0 0 0 5.1-2.6c.4-4.4-.7-8.2-3-11.5zM8.5 14.5c-1 0-1.8-.9-1.8-2s.8-2 1.8-2 1.8.9 1.8 2-.8 2-1.8 2zm7 0c-1 0-1.8-.9-1.8-2s.8-2 1.8-2 1.8.9 1.8 2-.8 2-1.8 2z"
          />
        </svg>
      );
    case 'oidc':
      return (
        <svg {...common}>
          <path
            fill="currentColor"
            d="M7 14a2 2 0 1 1 0-4 2 2 0 0 1 0 4zm5.6-4A6 6 0 1 0 12.6 14H16v3h3v-3h2v-4h-8.4z"
          />
        </svg>
      );
  }
}
