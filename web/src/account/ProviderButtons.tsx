import { useEffect, useState } from 'react';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { FormError } from './FormError';
import { listProviders, startOidc } from './oidc';
import type { OidcProvider } from './oidc';
import { ProviderIcon } from './ProviderIcon';

let cached: Promise<OidcProvider[]> | null = null;

/** The enabled providers, asked once per page load (a failure is asked again next time). */
export function enabledProviders(): Promise<OidcProvider[]> {
  if (cached === null) {
    cached = listProviders(api).catch((e: unknown) => {
      cached = null;
      throw e;
    });
  }
  return cached;
}

/** The enabled providers' button texts by name (the name until they are known). */
export function useProviderLabel(): (name: string) => string {
  const [labels, setLabels] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    let live = true;
    enabledProviders().then(
      (list) => live && setLabels(new Map(list.map((p) => [p.name, p.label]))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return (name) => labels.get(name) ?? name;
}

/** The login popup's third-party buttons: only the providers the operator enabled. */
export function ProviderButtons() {
  const t = useT();
  const [providers, setProviders] = useState<OidcProvider[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);

  useEffect(() => {
    let live = true;
    enabledProviders().then(
      (list) => live && setProviders(list),
      () => live && setProviders([]),
    );
    return () => {
      live = false;
    };
  }, []);

  if (providers.length === 0) return null;

  async function go(p: OidcProvider) {
    if (busy !== null) return;
    setBusy(p.name);
    setError(null);
    try {
      const back = `${window.location.pathname}${window.location.search}`;
      const url = await startOidc(api, window.sessionStorage, p.name, 'login', back);
      window.location.assign(url);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(null);
    }
  }

  return (
    <div className="provider-buttons" data-testid="provider-buttons">
      <p className="provider-buttons__or muted">{t('oidc.or')}</p>
      {providers.map((p) => (
        <button
          key={p.name}
          type="button"
          className="button button--wide provider-button"
          data-provider={p.name}
          disabled={busy !== null}
          onClick={() => void go(p)}
        >
          <ProviderIcon kind={p.kind} />
          <span>{t('oidc.continueWith', { provider: p.label })}</span>
        </button>
      ))}
      <FormError error={error} />
    </div>
  );
}
