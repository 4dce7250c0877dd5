// Settings → Account: the person's analytics opt-out. Kept on the account
// (the server drops its events, server-side ones included) and in this
// browser (the tracker stops sending at once).
import { useEffect, useState } from 'react';
import { FormError } from '../account/FormError';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { analyticsApi } from './api';
import { setLocalOptOut } from './install';

const calls = analyticsApi(api);

export function AnalyticsSettingsSection() {
  const t = useT();
  const [optOut, setOptOut] = useState<boolean | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);

  useEffect(() => {
    calls.settings({}).then(
      (s) => {
        setOptOut(s.analytics_opt_out);
        setLocalOptOut(s.analytics_opt_out);
      },
      (e: unknown) => setError(errorMessage(e)),
    );
  }, []);

  async function toggle(on: boolean) {
    setError(null);
    try {
      const s = await calls.settings({ analytics_opt_out: on });
      setOptOut(s.analytics_opt_out);
      setLocalOptOut(s.analytics_opt_out);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  if (optOut === null) return error ? <FormError error={error} /> : <p className="muted">{t('settings.loading')}</p>;
  return (
    <>
      <p className="muted">{t('analytics.settings.intro')}</p>
      <label className="settings-row">
        <input type="checkbox" data-testid="analytics-opt-out" checked={optOut} onChange={(e) => void toggle(e.target.checked)} />
        {t('analytics.settings.optOut')}
      </label>
      <FormError error={error} />
    </>
  );
}
