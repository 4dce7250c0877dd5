import { useId, useState } from 'react';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { ConfirmDialog } from './ConfirmDialog';
import { applyPreset, presetConflicts } from './form';
import type { CharacterDraft, PresetField } from './form';
import type { Preset } from './model';
import { useLoaded } from './useLoaded';

const FIELD_KEYS = {
  persona: 'tavern.form.persona',
  greeting: 'tavern.form.greeting',
  scenario: 'tavern.form.scenario',
} as const;

/** Starter templates (tavern-pro/preset/list) as chips that fill persona, greeting and scenario; asks before overwriting what was written. */
export function PresetChips({ draft, onApply }: { draft: CharacterDraft; onApply: (draft: CharacterDraft) => void }) {
  const t = useT();
  const labelId = useId();
  // Templates are a help, not the form: when they cannot be read, the form works without them.
  const presets = useLoaded(() => tavernApi.presets(), [], []).value;
  const [asking, setAsking] = useState<{ preset: Preset; fields: PresetField[] } | null>(null);

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
        <ConfirmDialog
          title={t('tavern.form.presetReplaceTitle', { title: asking.preset.title })}
          message={t('tavern.form.presetReplaceText', { fields: asking.fields.map((f) => t(FIELD_KEYS[f])).join(', ') })}
          confirmLabel={t('tavern.form.presetReplace')}
          onConfirm={() => {
            onApply(applyPreset(draft, asking.preset));
            setAsking(null);
          }}
          onCancel={() => setAsking(null)}
        />
      )}
    </div>
  );
}
