import { useEffect, useId, useState } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { applyPreset, presetConflicts } from './form';
import type { CharacterDraft, PresetField } from './form';
import type { Preset } from './model';

const FIELD_KEYS = {
  persona: 'tavern.form.persona',
  greeting: 'tavern.form.greeting',
  scenario: 'tavern.form.scenario',
} as const;

/** Starter templates (tavern-pro/preset/list) as chips that fill persona, greeting and scenario; asks before overwriting what was written. */
export function PresetChips({ draft, onApply }: { draft: CharacterDraft; onApply: (draft: CharacterDraft) => void }) {
  const t = useT();
  const labelId = useId();
  const [presets, setPresets] = useState<Preset[]>([]);
  const [asking, setAsking] = useState<{ preset: Preset; fields: PresetField[] } | null>(null);

  useEffect(() => {
    let gone = false;
    // Templates are a help, not the form: when they cannot be read, the form works without them.
    tavernApi
      .presets()
      .then((list) => {
        if (!gone) setPresets(list);
      })
      .catch(() => undefined);
    return () => {
      gone = true;
    };
  }, []);

  function pick(preset: Preset) {
    const fields = presetConflicts(draft, preset);
    if (fields.length === 0) onApply(applyPreset(draft, preset));
    else setAsking({ preset, fields });
  }

  if (presets.length === 0) return null;
  return (
    <div className="presets" role="group" aria-labelledby={labelId}>
      <p id={labelId} className="field__label">
        {t('tavern.form.presets')}
      </p>
      <div className="presets__chips">
        {presets.map((p) => (
          <button key={p.id} type="button" className="suggestions__chip" data-testid="preset" title={p.persona} onClick={() => pick(p)}>
            {p.title}
          </button>
        ))}
      </div>
      {asking !== null && (
        <Dialog title={t('tavern.form.presetReplaceTitle', { title: asking.preset.title })} closeLabel={t('tavern.dialog.close')} onClose={() => setAsking(null)} className="tavern-dialog">
          <p>{t('tavern.form.presetReplaceText', { fields: asking.fields.map((f) => t(FIELD_KEYS[f])).join(', ') })}</p>
          <div className="tavern-dialog__buttons">
            <button type="button" className="button" onClick={() => setAsking(null)}>
              {t('tavern.form.cancel')}
            </button>
            <button
              type="button"
              className="button button--primary"
              onClick={() => {
                onApply(applyPreset(draft, asking.preset));
                setAsking(null);
              }}
            >
              {t('tavern.form.presetReplace')}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
