// The VIP pop-up: the member perks, with a button to the plans (or, for a member, to the
// subscription). Opened by the header's badge, the banner and member-only errors.
import { useT } from '../i18n/useT';
import { Dialog } from '../generator/Dialog';
import { roleAtom } from '../generator/atoms';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { vipPopupAtom } from './atoms';
import { mallPath } from './route';
import type { MessageKey } from '../i18n/messages';

export const PERKS: readonly MessageKey[] = [
  'mall.vip.perk.images',
  'mall.vip.perk.fast',
  'mall.vip.perk.loras',
  'mall.vip.perk.queue',
  'mall.vip.perk.video',
];

export function VipPopup() {
  const t = useT();
  const [state, setState] = useAtom(vipPopupAtom);
  const role = useAtomValue(roleAtom);
  const locale = useAtomValue(localeAtom);
  if (!state.open) return null;
  const member = role === 'paid';
  const close = () => setState({ open: false });
  return (
    <Dialog title={member ? t('mall.vip.memberTitle') : t('mall.vip.title')} closeLabel={t('login.close')} onClose={close} className="mall-modal mall-vip">
      <p>{member ? t('mall.vip.memberIntro') : t('mall.vip.intro')}</p>
      <ul className="mall-perks" data-testid="vip-perks">
        {PERKS.map((k) => (
          <li key={k}>{t(k)}</li>
        ))}
      </ul>
      <div className="mall-actions">
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            close();
            navigate(appStore, localePath(locale, mallPath(member ? 'subscription' : 'mall')));
          }}
        >
          {member ? t('mall.vip.manage') : t('mall.vip.cta')}
        </button>
      </div>
    </Dialog>
  );
}
