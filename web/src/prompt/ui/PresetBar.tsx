import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useT } from '../../i18n/useT';
import { DIALECTS, type Dialect } from '../types';
import type { Preset } from '../editor';

export interface PresetBarProps {
  preset: Preset;
  presets: readonly Preset[];
  dictionaryShown: boolean;
  onSwitch(id: number): void;
  onNew(): void;
  onRename(name: string): void;
  onDialect(dialect: Dialect): void;
  onToggleDictionary(): void;
}

/** The editor's toolbar: preset menu, new and rename, the dialect switch, and the dictionary button. */
export function PresetBar(props: PresetBarProps) {
  const t = useT();
  const selectId = useId();
  const renameId = useId();
  const [renaming, setRenaming] = useState<string | null>(null);
  const { preset } = props;

  function saveName(e: FormEvent) {
    e.preventDefault();
    if (renaming !== null) props.onRename(renaming);
    setRenaming(null);
  }

  return (
    <div className="prompt-toolbar">
      {renaming === null ? (
        <div className="prompt-toolbar__presets">
          <label htmlFor={selectId}>{t('promptEditor.presets')}</label>
          <select id={selectId} value={preset.id} onChange={(e) => props.onSwitch(Number(e.target.value))}>
            {props.presets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
          <button type="button" className="button button--small" onClick={() => setRenaming(preset.name)}>
            {t('promptEditor.presetRename')}
          </button>
          <button type="button" className="button button--small" onClick={props.onNew}>
            {t('promptEditor.presetNew')}
          </button>
        </div>
      ) : (
        <form className="prompt-toolbar__presets" onSubmit={saveName}>
          <label htmlFor={renameId}>{t('promptEditor.presetRenameLabel')}</label>
          <input
            id={renameId}
            value={renaming}
            autoFocus
            maxLength={80}
            onChange={(e) => setRenaming(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setRenaming(null);
            }}
          />
          <button type="submit" className="button button--small button--primary">
            {t('promptEditor.presetRenameSave')}
          </button>
          <button type="button" className="button button--small" onClick={() => setRenaming(null)}>
            {t('promptEditor.presetRenameCancel')}
          </button>
        </form>
      )}
      <fieldset className="prompt-toolbar__dialect">
        <legend>{t('promptEditor.dialect')}</legend>
        {DIALECTS.map((d) => (
          <label key={d} className={`segmented${preset.parser === d ? ' segmented--on' : ''}`}>
            <input type="radio" name={`${selectId}-dialect`} value={d} checked={preset.parser === d} onChange={() => props.onDialect(d)} />
            {t(d === 'webui' ? 'promptEditor.dialect.webui' : 'promptEditor.dialect.bot')}
          </label>
        ))}
      </fieldset>
      <button type="button" className="button button--small" aria-expanded={props.dictionaryShown} onClick={props.onToggleDictionary}>
        {props.dictionaryShown ? t('promptEditor.dictionaryHide') : t('promptEditor.dictionaryShow')}
      </button>
    </div>
  );
}
