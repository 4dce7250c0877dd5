import { useT } from '../i18n/useT';
import { vipPopupAtom } from '../mall/atoms';
import { useAtom, useSetAtom } from '../state/jotai';
import { popupsAtom } from './atoms';
import { Dialog } from './Dialog';
import { FREE_LORA_LIMIT } from './roles';
import { useWorkspace } from './useWorkspace';

/** Spec 1 §5: a free user with more than 3 LoRAs; generation stays blocked until one is removed. */
export function LoraLimitDialog() {
  const t = useT();
  const [popups, setPopups] = useAtom(popupsAtom);
  const openVip = useSetAtom(vipPopupAtom);
  const { update, config } = useWorkspace();
  if (!popups.loraLimit) return null;
  const close = () => setPopups({ loraLimit: false });
  return (
    <Dialog title={t('gen.loraLimitTitle')} closeLabel={t('login.close')} onClose={close} className="gen-modal">
      <p data-testid="lora-limit-text">{t('LoRALimit5TipWeb')}</p>
      <div className="gen-actions">
        {config.loras.length > FREE_LORA_LIMIT && (
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              update((c) => ({ ...c, loras: c.loras.slice(0, FREE_LORA_LIMIT) }));
              close();
            }}
          >
            {t('gen.loraKeep', { n: FREE_LORA_LIMIT })}
          </button>
        )}
        <button
          type="button"
          className="button"
          onClick={() => {
            close();
            openVip({ open: true, reason: 'limit' });
          }}
        >
          {t('gen.loraVip')}
        </button>
        <button type="button" className="button" onClick={close}>
          {t('gen.ok')}
        </button>
      </div>
    </Dialog>
  );
}
