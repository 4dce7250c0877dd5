// The generator's lane note: the fast lane for members, the standard lane with a way to the
// VIP pop-up for free users (nothing for visitors).
import { roleAtom } from '../generator/atoms';
import { useT } from '../i18n/useT';
import { useAtomValue, useSetAtom } from '../state/jotai';
import { vipPopupAtom } from './atoms';

/** The generator's lane note: the fast lane for members, an upgrade link for free users. */
export function LaneNote() {
  const t = useT();
  const role = useAtomValue(roleAtom);
  const openVip = useSetAtom(vipPopupAtom);
  if (role === 'visitor') return null;
  if (role === 'paid') {
    return (
      <span className="mall-lane mall-lane--fast" data-testid="gen-lane" data-lane="fast">
        {t('gen.lane.fast')}
      </span>
    );
  }
  return (
    <span className="mall-lane" data-testid="gen-lane" data-lane="standard">
      {t('gen.lane.standard')}{' '}
      <button type="button" className="button button--link" onClick={() => openVip({ open: true, reason: 'limit' })}>
        {t('gen.lane.upgrade')}
      </button>
    </span>
  );
}
