import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { accountAtom } from '../account/atoms';
import { showToast } from '../app/toast';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { CharCount } from './CharCount';
import { charCount, checkPersona, PERSONA_MAX, PERSONA_NAME_MAX, personaChange, userNameShown } from './extras';
import type { Persona } from './extras';
import { useErrorText } from './useErrorText';

/** The user's chat persona (account/character/setting): the display name `{{user}}` becomes, and who they are. */
export function PersonaDialog({ onClose }: { onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const accountName = useAtomValue(accountAtom)?.name ?? '';
  const nameId = useId();
  const nameHint = useId();
  const personaId = useId();
  const personaHint = useId();
  const [stored, setStored] = useState<Persona | null>(null);
  const [name, setName] = useState('');
  const [persona, setPersona] = useState('');
  const [loading, setLoading] = useState(true);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let gone = false;
    tavernApi
      .persona()
      .then((p) => {
        if (gone) return;
        setStored(p);
        setName(p.display_name);
        setPersona(p.persona);
        setLoading(false);
      })
      .catch((e: unknown) => {
        if (gone) return;
        setError(errorText(e));
        setLoading(false);
      });
    return () => {
      gone = true;
    };
  }, [errorText]);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (saving) return;
    const problem = checkPersona(name, persona);
    if (problem !== null) {
      setError(t(`tavern.persona.${problem}`, { max: problem.startsWith('name') ? PERSONA_NAME_MAX : PERSONA_MAX }));
      return;
    }
    const change = personaChange(stored, name, persona);
    if (change === null) {
      onClose();
      return;
    }
    setSaving(true);
    setError(null);
    try {
      await tavernApi.updatePersona(change);
      showToast(appStore, t('tavern.persona.saved'));
      onClose();
    } catch (err) {
      setError(errorText(err));
      setSaving(false);
    }
  }

  const nameLength = charCount(name.trim());
  const personaLength = charCount(persona.trim());
  const shown = userNameShown(name, stored, accountName);
  return (
    <Dialog title={t('tavern.persona.title')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="tavern-dialog persona-dialog">
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="persona-form" aria-busy={loading}>
        <p className="persona-dialog__intro">{t('tavern.persona.intro')}</p>
        <div className="field">
          <label htmlFor={nameId} className="field__label">
            {t('tavern.persona.name')}
          </label>
          <input
            id={nameId}
            className="tavern-input"
            type="text"
            value={name}
            disabled={loading}
            placeholder={stored !== null && stored.display_name === '' ? stored.user_name : accountName}
            aria-describedby={nameHint}
            aria-invalid={nameLength > PERSONA_NAME_MAX}
            autoComplete="nickname"
            onChange={(e) => {
              setName(e.target.value);
              setError(null);
            }}
          />
          <span id={nameHint} className="field__hint">
            <span>{t('tavern.persona.nameHint')}</span>
            <CharCount length={nameLength} max={PERSONA_NAME_MAX} />
          </span>
        </div>
        {shown !== '' && (
          <p className="persona-dialog__becomes" data-testid="persona-becomes" aria-live="polite">
            {t('tavern.persona.becomes', { name: shown })}
          </p>
        )}
        <div className="field">
          <label htmlFor={personaId} className="field__label">
            {t('tavern.persona.persona')}
          </label>
          <textarea
            id={personaId}
            className="tavern-input"
            rows={5}
            value={persona}
            disabled={loading}
            aria-describedby={personaHint}
            aria-invalid={personaLength > PERSONA_MAX}
            onChange={(e) => {
              setPersona(e.target.value);
              setError(null);
            }}
          />
          <span id={personaHint} className="field__hint">
            <span>{t('tavern.persona.personaHint')}</span>
            <CharCount length={personaLength} max={PERSONA_MAX} />
          </span>
        </div>
        {loading && <p className="tavern__note">{t('tavern.loading')}</p>}
        {error !== null && (
          <p className="tavern__error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={stored === null} aria-disabled={saving}>
            {saving ? t('tavern.form.saving') : t('tavern.form.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
