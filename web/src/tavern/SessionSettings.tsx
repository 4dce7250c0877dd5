import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { tavernApi } from './actions';
import type { ChatSession, ChatSettings } from './model';
import { checkSessionEdit, DEFAULT_SETTINGS, sessionChange, SETTINGS_LIMITS, settingValue, TITLE_MAX } from './settings';
import type { SettingsField, SettingsProblem } from './settings';
import { useErrorText } from './useErrorText';
import { SessionVoice } from './ReplySpeech';

const FIELD_KEYS = {
  temperature: 'tavern.settings.temperature',
  top_p: 'tavern.settings.topP',
  max_reply_tokens: 'tavern.settings.maxTokens',
} as const;

const HINT_KEYS = {
  temperature: 'tavern.settings.temperatureHint',
  top_p: 'tavern.settings.topPHint',
  max_reply_tokens: 'tavern.settings.maxTokensHint',
} as const;

function problemText(t: Translate, p: SettingsProblem): string {
  if (p.kind === 'title') return t('tavern.settings.titleInvalid', { max: TITLE_MAX });
  const { min, max } = SETTINGS_LIMITS[p.field];
  return t('tavern.settings.outOfRange', { field: t(FIELD_KEYS[p.field]), min, max });
}

/** One setting: a slider with its number beside it (both labelled, both keyboard-operable). */
function SettingField({ field, value, onChange }: { field: SettingsField; value: number; onChange: (v: number) => void }) {
  const t = useT();
  const id = useId();
  const hintId = useId();
  const { min, max, step } = SETTINGS_LIMITS[field];
  const label = t(FIELD_KEYS[field]);
  return (
    <div className="field session-settings__field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <div className="session-settings__controls">
        <input
          type="range"
          className="session-settings__range"
          min={min}
          max={max}
          step={step}
          value={Number.isFinite(value) ? value : min}
          aria-label={t('tavern.settings.slider', { field: label })}
          aria-describedby={hintId}
          onChange={(e) => onChange(Number(e.target.value))}
        />
        <input
          id={id}
          type="number"
          className="tavern-input session-settings__number"
          inputMode={field === 'max_reply_tokens' ? 'numeric' : 'decimal'}
          min={min}
          max={max}
          step={step}
          value={Number.isFinite(value) ? value : ''}
          aria-describedby={hintId}
          onChange={(e) => onChange(settingValue(e.target.value))}
        />
      </div>
      <span id={hintId} className="field__hint">
        {t(HINT_KEYS[field], { min, max })}
      </span>
    </div>
  );
}

/** The chat settings dialog: the session's title and its model settings (session/edit). */
export function SessionSettingsDialog(props: {
  session: ChatSession;
  /** The character's own settings: where "Reset" goes back to. */
  characterSettings: ChatSettings | null;
  defaultTitle: string;
  onSaved: (session: ChatSession) => void;
  onClose: () => void;
  /** Opens the user's chat persona instead (this dialog closes). */
  onPersona: () => void;
  /** The session's voice was saved (at once, without the form's Save). */
  onVoice?: (session: ChatSession) => void;
}) {
  const t = useT();
  const errorText = useErrorText();
  const titleId = useId();
  const { session } = props;
  const [title, setTitle] = useState(session.title);
  const [settings, setSettings] = useState<ChatSettings>(session.settings ?? props.characterSettings ?? DEFAULT_SETTINGS);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (field: SettingsField) => (v: number) => setSettings((s) => ({ ...s, [field]: v }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const problem = checkSessionEdit(title, settings);
    if (problem !== null) {
      setError(problemText(t, problem));
      return;
    }
    const change = sessionChange(session, title, settings);
    if (change === null) {
      props.onClose();
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const stored = await tavernApi.editSession(session.session_id, change);
      props.onSaved(stored ?? { ...session, title: change.title ?? session.title, settings: change.settings ?? session.settings });
      props.onClose();
    } catch (err) {
      setError(errorText(err));
      setSaving(false);
    }
  }

  return (
    <Dialog title={t('tavern.settings.title')} closeLabel={t('tavern.settings.close')} onClose={props.onClose} className="tavern-dialog session-settings">
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="session-settings">
        <div className="field">
          <label htmlFor={titleId} className="field__label">
            {t('tavern.settings.chatTitle')}
          </label>
          <input id={titleId} className="tavern-input" value={title} placeholder={props.defaultTitle} maxLength={TITLE_MAX} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <SettingField field="temperature" value={settings.temperature} onChange={set('temperature')} />
        <SettingField field="top_p" value={settings.top_p} onChange={set('top_p')} />
        <SettingField field="max_reply_tokens" value={settings.max_reply_tokens} onChange={set('max_reply_tokens')} />
        <SessionVoice sessionId={session.session_id} timbreId={session.timbre_id ?? ''} onSaved={(timbre_id) => props.onVoice?.({ ...session, timbre_id })} />
        <div className="session-settings__persona">
          <p className="field__hint">{t('tavern.persona.fromSettings')}</p>
          <button type="button" className="button button--small" aria-haspopup="dialog" onClick={props.onPersona}>
            {t('tavern.persona.open')}
          </button>
        </div>
        {error !== null && (
          <p className="tavern__error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button button--link session-settings__reset" onClick={() => setSettings(props.characterSettings ?? DEFAULT_SETTINGS)}>
            {t('tavern.settings.reset')}
          </button>
          <button type="button" className="button" onClick={props.onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={saving}>
            {saving ? t('tavern.form.saving') : t('tavern.form.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
