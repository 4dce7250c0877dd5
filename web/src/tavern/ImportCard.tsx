import { useId, useRef, useState } from 'react';
import type { ChangeEvent } from 'react';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { tavernPath } from './route';
import { useErrorText } from './useErrorText';

/** Imports a V2 card file (JSON, or PNG with the card inside) as a draft, then opens its edit form. */
export function ImportCard() {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const inputId = useId();
  const hintId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const typed = file.type === '' && file.name.toLowerCase().endsWith('.png') ? new Blob([file], { type: 'image/png' }) : file;
      const id = await tavernApi.importCard(typed);
      showToast(appStore, t('tavern.card.imported'));
      navigate(appStore, localePath(locale, tavernPath({ view: 'edit', id })));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="import-card">
      <input
        ref={input}
        id={inputId}
        type="file"
        accept=".json,.png,application/json,image/png"
        className="visually-hidden"
        aria-describedby={hintId}
        onChange={(e) => void onFile(e)}
        disabled={busy}
      />
      <label htmlFor={inputId} className={`button${busy ? ' button--busy' : ''}`}>
        {busy ? t('tavern.card.importing') : t('tavern.card.import')}
      </label>
      <span id={hintId} className="tavern__note">
        {t('tavern.card.importHint')}
      </span>
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
