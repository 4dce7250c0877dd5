import { useId } from 'react';
import { useT } from '../i18n/useT';
import { useSetAtom } from '../state/jotai';
import { nIterChoiceAtom } from './atoms';
import { N_ITER_MAX, N_ITER_MIN } from './roles';
import { isBatch } from './tabs';
import { useWorkspace } from './useWorkspace';

const N_ITERS = Array.from({ length: N_ITER_MAX - N_ITER_MIN + 1 }, (_, i) => N_ITER_MIN + i);

/** Image count (1–4). */
export function NIterField() {
  const t = useT();
  const id = useId();
  const { config, update, role } = useWorkspace();
  const setStored = useSetAtom(nIterChoiceAtom);
  return (
    <div className="field">
      <label htmlFor={id}>{t('gen.nIter')}</label>
      <select
        id={id}
        className="gen-select"
        value={config.nIter}
        onChange={(e) => {
          const n = Number(e.currentTarget.value);
          update({ nIter: n });
          if (role === 'free') setStored(n);
        }}
      >
        {N_ITERS.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Sampler, steps, cfg, seed and the image count. */
export function AdvancedFields() {
  const t = useT();
  const ids = { sampler: useId(), steps: useId(), cfg: useId(), seed: useId() };
  const { catalogue, config, update, tab } = useWorkspace();
  return (
    <details className="gen-details" open>
      <summary>{t('gen.advanced')}</summary>
      <div className="gen-grid">
        <div className="field gen-grid__wide">
          <label htmlFor={ids.sampler}>{t('gen.sampler')}</label>
          <select id={ids.sampler} className="gen-select" value={config.sampler} onChange={(e) => update({ sampler: e.currentTarget.value })}>
            {catalogue.samplers.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.steps}>{t('gen.steps')}</label>
          <input
            id={ids.steps}
            type="number"
            min={1}
            max={150}
            value={config.steps}
            onChange={(e) => update({ steps: Math.round(Number(e.currentTarget.value) || 0) })}
          />
        </div>
        <div className="field">
          <label htmlFor={ids.cfg}>{t('gen.cfg')}</label>
          <input
            id={ids.cfg}
            type="number"
            min={1}
            max={30}
            step={0.5}
            value={config.cfg}
            onChange={(e) => update({ cfg: Number(e.currentTarget.value) || 0 })}
          />
        </div>
        <div className="field">
          <label htmlFor={ids.seed}>{t('gen.seed')}</label>
          <input
            id={ids.seed}
            type="text"
            inputMode="numeric"
            placeholder={t('gen.seedRandom')}
            value={config.seed}
            onChange={(e) => update({ seed: e.currentTarget.value.replace(/[^0-9-]/g, '') })}
          />
        </div>
        {isBatch(tab) && <NIterField />}
      </div>
    </details>
  );
}
