// Paying by bank transfer (the manual provider): the operator's instructions from
// `payment/gray-info`, the amount and the order id as the reference; then the return page.
import type { GrayInfo } from '../api/mall';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { manualOrderAtom } from './atoms';
import { useLoad, usePrice } from './hooks';
import { mallPath } from './route';
import { mallApi } from './services';

function Instructions() {
  const [info] = useLoad<GrayInfo>(() => mallApi.grayInfo(), 'gray');
  if (info.state !== 'ready' || info.value.manual_instructions.trim() === '') return null;
  return (
    <p className="mall-instructions" data-testid="manual-instructions">
      {info.value.manual_instructions}
    </p>
  );
}

export function ManualPayDialog() {
  const t = useT();
  const price = usePrice();
  const locale = useAtomValue(localeAtom);
  const [order, setOrder] = useAtom(manualOrderAtom);
  if (!order) return null;
  const close = () => setOrder(null);
  return (
    <Dialog title={t('mall.manual.title')} closeLabel={t('login.close')} onClose={close} className="mall-modal">
      <Instructions />
      <p>{t('mall.manual.amount', { price: price(order.amount, order.currency) })}</p>
      <p>
        <strong data-testid="manual-reference">{t('mall.manual.reference', { id: order.order_id })}</strong>
      </p>
      <p className="muted">{t('mall.manual.note')}</p>
      <div className="mall-actions">
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            close();
            navigate(appStore, localePath(locale, mallPath('return', order.order_id)));
          }}
        >
          {t('mall.manual.done')}
        </button>
      </div>
    </Dialog>
  );
}
