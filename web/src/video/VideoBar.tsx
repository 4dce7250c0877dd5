import { useEffect, useMemo } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { estimateVideo } from '../api/video';
import type { VideoEstimate, VideoParams } from '../api/video';
import { refreshBalance } from '../generator/GenerateBar';
import { balanceAtom } from '../generator/atoms';
import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { appStore, useAtom, useAtomValue, useSetAtom } from '../state/jotai';
import { trackTaskAtom } from '../tasks';
import { videoEstimateAtom, videoGeneratingAtom, videoProblemAtom } from './atoms';
import type { VideoShownProblem } from './atoms';
import { generateVideo } from './generate';
import { buildVideoRequest, checkVideo, showDiscount } from './model';
import { useVideo } from './useVideo';

/** Wait after the last change before asking for an estimate. */
export const VIDEO_ESTIMATE_DEBOUNCE_MS = 500;

function problemText(t: Translate, p: VideoShownProblem): string {
  if (p.key !== null && isMessageKey(p.key) && !p.key.includes('.')) return t(p.key);
  if (p.text.trim() !== '') return p.text;
  return t('ServerError');
}

/** The cost estimate (spec 2 §7 "Cost estimate"), the problem, and Generate. */
export function VideoBar({ params }: { params: VideoParams }) {
  const t = useT();
  const { tab, config, caller } = useVideo(params);
  const [generating] = useAtom(videoGeneratingAtom);
  const [problem, setProblem] = useAtom(videoProblemAtom);
  const [estimate, setEstimate] = useAtom(videoEstimateAtom);
  const token = useAtomValue(tokenAtom);
  const trackTask = useSetAtom(trackTaskAtom);

  const body = useMemo(() => buildVideoRequest(tab, config, params, caller), [tab, config, params, caller]);
  const json = JSON.stringify(body);
  const ok = checkVideo(tab, config, params, caller, true) === null;

  useEffect(() => setProblem(null), [config, setProblem]);
  useEffect(() => {
    if (!ok) {
      setEstimate(null);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      estimateVideo(api, JSON.parse(json) as typeof body, { signal: controller.signal })
        .then(setEstimate)
        .catch(() => {
          if (!controller.signal.aborted) setEstimate(null);
        });
    }, VIDEO_ESTIMATE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [json, ok, token, setEstimate]);

  async function onGenerate() {
    await generateVideo({
      store: appStore,
      api,
      params,
      caller,
      tab,
      config,
      onCreated: (id) => {
        showToast(appStore, t('CreateSuccess'));
        trackTask(id);
        void refreshBalance(token);
      },
    });
  }

  return (
    <div className="gen-bar">
      {problem && (
        <p className="form-error" role="alert" data-testid="video-problem" data-key={problem.key ?? ''}>
          {problemText(t, problem)}
        </p>
      )}
      <div className="gen-bar__row">
        <VideoBarEstimate estimate={estimate} testId="video-cost" discount={showDiscount(tab, estimate)} />
        <button
          type="submit"
          className="button button--primary gen-bar__go"
          aria-busy={generating}
          disabled={generating}
          onClick={(e) => {
            e.preventDefault();
            void onGenerate();
          }}
        >
          {generating ? t('gen.generating') : t('gen.generate')}
        </button>
      </div>
    </div>
  );
}

/** The cost line: the estimate (or "shown when ready"), the discount where it applies (§5), the time and the balance. */
export function VideoBarEstimate({ estimate, testId, discount = false }: { estimate: VideoEstimate | null; testId: string; discount?: boolean }) {
  const t = useT();
  const balance = useAtomValue(balanceAtom);
  const token = useAtomValue(tokenAtom);
  const shownBalance = balance !== null && balance.token === token ? balance.available : null;
  return (
    <div className="gen-bar__info" aria-live="polite">
      <span data-testid={testId}>{estimate ? t('gen.costs', { n: estimate.calculate_coins }) : t('gen.costsUnknown')}</span>
      {estimate && discount && (
        <span className="video-discount" data-testid="video-discount">
          <s className="muted">{estimate.calculate_coins_before_discount}</s> {t('video.discount', { rate: estimate.discount_off_rate })}
        </span>
      )}
      {estimate && estimate.estimate_time > 0 && <span className="muted">{t('video.estimateTime', { seconds: estimate.estimate_time })}</span>}
      {shownBalance !== null && <span className="muted">{t('gen.balance', { n: shownBalance })}</span>}
    </div>
  );
}
