// The recharge dialog: opened when a generate answers CoinsNotEnough (40301); the credit
// packs with buy buttons and a link to the whole mall.
import type { Product } from '../api/mall';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { rechargeOpenAtom } from './atoms';
import { CreditPacks } from './CreditPacks';
import { useErrorText, useLoad } from './hooks';
import { mallPath } from './route';
import { mallApi } from './services';

function Packs() {
  const errorText = useErrorText();
  const [packs] = useLoad<Product[]>(async () => (await mallApi.products()).filter((p) => p.kind === 'credits').sort((a, b) => a.sort - b.sort || a.price - b.price), 'packs');
  if (packs.state === 'loading') return <progress />;
  if (packs.state === 'error') return <p className="form-error">{errorText(packs.error)}</p>;
  return <CreditPacks packs={packs.value} compact />;
}

export function RechargeDialog() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const [open, setOpen] = useAtom(rechargeOpenAtom);
  if (!open) return null;
  const close = () => setOpen(false);
  return (
    <Dialog title={t('mall.recharge.title')} closeLabel={t('login.close')} onClose={close} className="mall-modal mall-recharge">
      <p>{t('mall.recharge.text')}</p>
      <Packs />
      <div className="mall-actions">
        <button
          type="button"
          className="button button--link"
          onClick={() => {
            close();
            navigate(appStore, localePath(locale, mallPath('mall')));
          }}
        >
          {t('mall.recharge.toMall')}
        </button>
      </div>
    </Dialog>
  );
}
