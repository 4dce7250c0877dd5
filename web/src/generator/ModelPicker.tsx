import { useId } from 'react';
import { useT } from '../i18n/useT';
import { checkpointGroups } from './catalogue';
import { withCheckpoint } from './config';
import { useWorkspace } from './useWorkspace';

/** The checkpoint picker, grouped by family (studio mode offers the studio checkpoints). */
export function ModelPicker() {
  const t = useT();
  const id = useId();
  const { catalogue, studio, config, update, ctx } = useWorkspace();
  const groups = checkpointGroups(catalogue, studio);
  return (
    <div className="field">
      <label htmlFor={id}>{t('gen.model')}</label>
      <select
        id={id}
        className="gen-select"
        value={config.modelVerNo}
        onChange={(e) => {
          const v = e.currentTarget.value;
          update((c) => (v === '' ? { ...c, modelVerNo: '' } : withCheckpoint(c, v, ctx)));
        }}
      >
        <option value="">{t('gen.modelNone')}</option>
        {groups.map((g) => (
          <optgroup key={g.family.id} label={g.family.name}>
            {g.checkpoints.map((c) => (
              <option key={c.model_ver_no} value={c.model_ver_no}>
                {c.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </div>
  );
}

/** The starter tab's look: a starter artwork (and its checkpoint). */
export function LookPicker() {
  const t = useT();
  const id = useId();
  const { catalogue, config, update, ctx } = useWorkspace();
  return (
    <div className="field">
      <label htmlFor={id}>{t('gen.look')}</label>
      <select
        id={id}
        className="gen-select"
        value={config.artWorkNo}
        onChange={(e) => {
          const art = catalogue.artworks.find((a) => a.art_work_no === e.currentTarget.value);
          if (!art) return;
          update((c) => ({ ...withCheckpoint(c, art.model_ver_no, ctx), modelVerNo: '', artWorkNo: art.art_work_no }));
        }}
      >
        {catalogue.artworks.map((a) => (
          <option key={a.art_work_no} value={a.art_work_no}>
            {a.name}
          </option>
        ))}
      </select>
    </div>
  );
}
