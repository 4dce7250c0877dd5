import { useEffect, useState } from 'react';
import { enabledProviders } from '../account/ProviderButtons';
import { linkedProviders, startOidc, unlinkProvider } from '../account/oidc';
import type { LinkedAnswer, OidcProvider } from '../account/oidc';
import { ProviderIcon } from '../account/ProviderIcon';
import { FormError } from '../account/FormError';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';

/**
 * Settings, security tab: the providers linked to the account, linking one
 * more (through the provider, back to this page) and unlinking. The server
 * refuses to unlink the last way to sign in (OidcLastSignIn); the button is
 * disabled for it too.
 */
export function LinkedAccountsSection() {
  const t = useT();
  const [providers, setProviders] = useState<OidcProvider[]>([]);
  const [linked, setLinked] = useState<LinkedAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);

  useEffect(() => {
    let live = true;
    Promise.all([enabledProviders(), linkedProviders(api)]).then(
      ([list, mine]) => {
        if (!live) return;
        setProviders(list);
        setLinked(mine);
      },
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, []);

  async function link(p: OidcProvider) {
    setBusy(true);
    setError(null);
    try {
      const back = `${window.location.pathname}${window.location.search}`;
      window.location.assign(await startOidc(api, window.sessionStorage, p.name, 'link', back));
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  }

  async function unlink(name: string) {
    setBusy(true);
    setError(null);
    try {
      setLinked(await unlinkProvider(api, name));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  if (linked === null) return <FormError error={error} />;
  const lastWay = !linked.has_password && linked.items.length <= 1;
  const byName = new Map(providers.map((p) => [p.name, p]));
  const unlinked = providers.filter((p) => !linked.items.some((l) => l.provider === p.name));

  return (
    <div className="linked-accounts" data-testid="linked-accounts">
      <p className="muted">{t('oidc.linked.hint')}</p>
      {linked.items.length === 0 ? (
        <p>{t('oidc.linked.none')}</p>
      ) : (
        <ul className="linked-accounts__list">
          {linked.items.map((l) => {
            const p = byName.get(l.provider);
            return (
              <li key={l.provider} data-provider={l.provider}>
                <ProviderIcon kind={p?.kind ?? 'oidc'} />
                <span>{p?.label ?? l.provider}</span>
                {l.email !== null && <span className="muted">{l.email}</span>}
                <span className="muted">
                  {t('oidc.linked.since', { date: new Date(l.linked_at * 1000).toLocaleDateString() })}
                </span>
                <button
                  type="button"
                  className="button"
                  disabled={busy || lastWay}
                  title={lastWay ? t('OidcLastSignIn') : undefined}
                  onClick={() => void unlink(l.provider)}
                >
                  {t('oidc.linked.unlink')}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {unlinked.map((p) => (
        <button
          key={p.name}
          type="button"
          className="button provider-button"
          data-provider={p.name}
          disabled={busy}
          onClick={() => void link(p)}
        >
          <ProviderIcon kind={p.kind} />
          <span>{t('oidc.linked.link', { provider: p.label })}</span>
        </button>
      ))}
      <FormError error={error} />
    </div>
  );
}
