import { useId } from 'react';
import { useT } from '../i18n/useT';
import { useAtom } from '../state/jotai';
import { popupsAtom } from './atoms';
import { Dialog } from './Dialog';
import { ImageField } from './ImageField';
import { useWorkspace } from './useWorkspace';

/** The condition tab's unit, summarised, with the button that opens the popup. */
export function ControlNetSummary() {
  const t = useT();
  const { config } = useWorkspace();
  const [, setPopups] = useAtom(popupsAtom);
  const c = config.control;
  return (
    <div className="gen-fieldset gen-cn">
      <div>
        <strong>{t('gen.cn.title')}</strong>
        <p className="muted gen-small">
          {c.image
            ? t('gen.cn.summary', { module: c.module, weight: c.weight.toFixed(2), end: c.guidance_end.toFixed(2) })
            : t('gen.cn.empty')}
        </p>
      </div>
      {c.image && <img className="gen-cn__thumb" src={c.image.url} alt={t('gen.cn.image')} />}
      <button type="button" className="button" onClick={() => setPopups({ controlNet: true })}>
        {t('gen.cn.open')}
      </button>
    </div>
  );
}

/** The control-net popup: module (from the catalogue), weight, guidance end, condition image. */
export function ControlNetPopup() {
  const t = useT();
  const ids = { module: useId(), weight: useId(), end: useId() };
  const { catalogue, config, update, key } = useWorkspace();
  const [popups, setPopups] = useAtom(popupsAtom);
  if (!popups.controlNet) return null;
  const c = config.control;
  const set = (change: Partial<typeof c>) => update((x) => ({ ...x, control: { ...x.control, ...change } }));
  const close = () => setPopups({ controlNet: false });
  return (
    <Dialog title={t('gen.cn.title')} closeLabel={t('login.close')} onClose={close} className="gen-modal">
      <div className="form">
        <div className="field">
          <label htmlFor={ids.module}>{t('gen.cn.module')}</label>
          <select id={ids.module} className="gen-select" value={c.module} onChange={(e) => set({ module: e.currentTarget.value })}>
            {catalogue.control_modules.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.weight}>{t('gen.cn.weight')}</label>
          <div className="gen-inline">
            <input
              id={ids.weight}
              type="range"
              min={0}
              max={2}
              step={0.05}
              value={c.weight}
              onChange={(e) => set({ weight: Number(e.currentTarget.value) })}
            />
            <output className="gen-num">{c.weight.toFixed(2)}</output>
          </div>
        </div>
        <div className="field">
          <label htmlFor={ids.end}>{t('gen.cn.end')}</label>
          <div className="gen-inline">
            <input
              id={ids.end}
              type="range"
              min={0}
              max={1}
              step={0.05}
              value={c.guidance_end}
              onChange={(e) => set({ guidance_end: Number(e.currentTarget.value) })}
            />
            <output className="gen-num">{c.guidance_end.toFixed(2)}</output>
          </div>
        </div>
        <ImageField slot={`${key}:control`} label={t('gen.cn.image')} value={c.image} onChange={(image) => set({ image })} />
        <button type="button" className="button button--primary button--wide" onClick={close}>
          {t('gen.done')}
        </button>
      </div>
    </Dialog>
  );
}
