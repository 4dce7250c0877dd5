// Notifications tab: which kinds of notification reach the account
// (moderation notices always do). Each switch saves at once.
import { useEffect, useState } from 'react';
import { FormError } from '../account/FormError';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import type { NotifyKind, Prefs } from './api';
import { NOTIFY_KINDS } from './api';
import { security } from './useSecurityApi';

export function NotificationsSection() {
  const t = useT();
  const [prefs, setPrefs] = useState<Prefs | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);

  useEffect(() => {
    security.prefs().then(setPrefs, (e: unknown) => setError(errorMessage(e)));
  }, []);

  async function toggle(kind: NotifyKind, on: boolean) {
    setError(null);
    try {
      setPrefs(await security.updatePrefs({ notify: { [kind]: on } as Prefs['notify'] }));
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  if (prefs === null) return error ? <FormError error={error} /> : <p className="muted">{t('settings.loading')}</p>;
  return (
    <>
      <p className="muted">{t('settings.notifications.intro')}</p>
      <ul className="settings-list">
        {NOTIFY_KINDS.map((k) => (
          <li key={k}>
            <label className="settings-row">
              <input type="checkbox" data-testid={`notify-${k}`} checked={prefs.notify[k]} onChange={(e) => void toggle(k, e.target.checked)} />
              {t(`settings.notifications.kind.${k}`)}
            </label>
          </li>
        ))}
      </ul>
      <FormError error={error} />
    </>
  );
}
