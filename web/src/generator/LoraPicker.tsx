import { useId } from 'react';
import { useT } from '../i18n/useT';
import { useSetAtom } from '../state/jotai';
import { popupsAtom } from './atoms';
import { lorasFor } from './catalogue';
import { loraLimitExceeded } from './roles';
import { useWorkspace } from './useWorkspace';

/**
 * LoRAs of the checkpoint's family (studio: every LoRA, with the LoRA-ignore
 * switch). A free user adding a fourth gets the limit dialog (spec 1 §5).
 */
export function LoraPicker() {
  const t = useT();
  const addId = useId();
  const ignoreId = useId();
  const { catalogue, studio, role, config, update, family } = useWorkspace();
  const setPopups = useSetAtom(popupsAtom);
  const offered = studio ? catalogue.loras : lorasFor(catalogue, family);
  const chosen = new Set(config.loras.map((l) => l.model_ver_no));
  const available = offered.filter((l) => !chosen.has(l.model_ver_no));

  function add(modelVerNo: string) {
    const lora = catalogue.loras.find((l) => l.model_ver_no === modelVerNo);
    if (!lora) return;
    const next = [
      ...config.loras,
      { model_id: lora.model_id, model_ver_no: lora.model_ver_no, name: lora.name, base_model: lora.base_model, weight: lora.weight },
    ];
    update({ loras: next });
    if (loraLimitExceeded(role, next.length)) setPopups({ loraLimit: true });
  }

  return (
    <fieldset className="gen-fieldset" data-testid="lora-picker">
      <legend>{t('gen.loras')}</legend>
      {config.loras.length === 0 && <p className="muted gen-small">{t('gen.lorasNone')}</p>}
      <ul className="gen-loras">
        {config.loras.map((l, i) => (
          <li key={l.model_ver_no} className="gen-loras__item">
            <span className="gen-loras__name">{l.name}</span>
            <label className="gen-inline">
              <span className="visually-hidden">{t('gen.loraWeight', { name: l.name })}</span>
              <input
                type="range"
                min={-2}
                max={2}
                step={0.05}
                value={l.weight}
                onChange={(e) => {
                  const weight = Number(e.currentTarget.value);
                  update((c) => ({ ...c, loras: c.loras.map((x, j) => (j === i ? { ...x, weight } : x)) }));
                }}
              />
              <output className="gen-num">{l.weight.toFixed(2)}</output>
            </label>
            <button
              type="button"
              className="button button--link"
              aria-label={t('gen.loraRemove', { name: l.name })}
              onClick={() => update((c) => ({ ...c, loras: c.loras.filter((_, j) => j !== i) }))}
            >
              {t('gen.remove')}
            </button>
          </li>
        ))}
      </ul>
      {available.length > 0 && (
        <div className="field">
          <label htmlFor={addId}>{t('gen.loraAdd')}</label>
          <select
            id={addId}
            className="gen-select"
            value=""
            onChange={(e) => add(e.currentTarget.value)}
          >
            <option value="">{t('gen.loraChoose')}</option>
            {available.map((l) => (
              <option key={l.model_ver_no} value={l.model_ver_no}>
                {l.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {family === '' && !studio && <p className="muted gen-small">{t('gen.lorasNeedModel')}</p>}
      {role !== 'paid' && <p className="muted gen-small">{t('gen.loraFreeLimit')}</p>}
      {studio && (
        <label className="gen-check" htmlFor={ignoreId}>
          <input
            id={ignoreId}
            type="checkbox"
            checked={config.loraIgnore}
            onChange={(e) => update({ loraIgnore: e.currentTarget.checked })}
          />
          {t('gen.loraIgnore')}
        </label>
      )}
    </fieldset>
  );
}
