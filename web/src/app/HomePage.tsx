import { useT } from '../i18n/useT';
import { RecentFrames } from '../socket/RecentFrames';
import { SquarePage } from '../square/SquarePage';

/** `/{locale}/`: the square, with the live-events panel folded away beside it. */
export function HomePage() {
  const t = useT();
  return (
    <>
      <SquarePage />
      <details className="sq-live">
        <summary>{t('square.liveEvents')}</summary>
        <RecentFrames />
      </details>
    </>
  );
}
