import { useEffect, useMemo, useState } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { isMessageKey } from '../i18n/messages';
import { LaneNote } from '../mall/LaneNote';
import { useT } from '../i18n/useT';
import { appStore, useAtom, useAtomValue, useSetAtom } from '../state/jotai';
import { trackTaskAtom } from '../tasks';
import { balanceAtom, estimateAtom, generatingAtom, problemAtom, uploadsAtom } from './atoms';
import type { ShownProblem } from './atoms';
import { buildRequest } from './config';
import { generate, uploadingFor } from './generate';
import { useWorkspace } from './useWorkspace';
import { validate } from './validate';
import type { Translate } from '../i18n/useT';

/** Wait after the last change before asking for an estimate. */
export const ESTIMATE_DEBOUNCE_MS = 500;

function problemText(t: Translate, p: ShownProblem): string {
  if (p.key !== null && isMessageKey(p.key) && !p.key.includes('.')) return t(p.key);
  if (p.show === 'server' && p.text.trim() !== '') return p.text;
  return t('ServerError');
}

interface EstimateAnswer {
  calculate_coins: number;
  balance: number | null;
  free_left: number | null;
}

/** Fetches the estimate (debounced) for a config the checks accept. */
function useEstimate(body: unknown, ok: boolean, revision: number) {
  const setEstimate = useSetAtom(estimateAtom);
  const token = useAtomValue(tokenAtom);
  const json = JSON.stringify(body);
  useEffect(() => {
    if (!ok) {
      setEstimate(null);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api
        .post<EstimateAnswer>('/api/v1/task/v2/estimate', JSON.parse(json) as unknown, { signal: controller.signal })
        .then((e) => setEstimate({ coins: e.calculate_coins, balance: e.balance, freeLeft: e.free_left }))
        .catch(() => {
          if (!controller.signal.aborted) setEstimate(null);
        });
    }, ESTIMATE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [json, ok, token, revision, setEstimate]);
}

/** Reads the balance for the signed-in account. */
export async function refreshBalance(token: string | null): Promise<void> {
  if (token === null) return;
  try {
    const a = await api.post<{ available: number }>('/api/v1/payment/assets/get');
    if (appStore.get(tokenAtom) === token) appStore.set(balanceAtom, { token, available: a.available });
  } catch {
    // The estimate also carries the balance; nothing to show meanwhile.
  }
}

/** The estimate, the balance, the check's or server's message, and Generate. */
export function GenerateBar() {
  const t = useT();
  const { catalogue, studio, role, tab, config, key } = useWorkspace();
  const [generating] = useAtom(generatingAtom);
  const [problem, setProblem] = useAtom(problemAtom);
  const estimate = useAtomValue(estimateAtom);
  const uploads = useAtomValue(uploadsAtom);
  const balance = useAtomValue(balanceAtom);
  const token = useAtomValue(tokenAtom);
  const trackTask = useSetAtom(trackTaskAtom);
  const uploading = uploadingFor(uploads, key);

  const body = useMemo(() => buildRequest(tab, config, { catalogue, studio, role }), [tab, config, catalogue, studio, role]);
  const ok = validate(tab, config, { catalogue, studio, role, uploading }) === null;
  // Bumped after each created task: the balance has changed.
  const [revision, setRevision] = useState(0);
  useEstimate(body, ok, revision);

  // A problem disappears once the config that caused it changes.
  useEffect(() => setProblem(null), [config, setProblem]);

  const shownBalance =
    estimate?.balance ?? (balance !== null && balance.token === token ? balance.available : null);

  async function onGenerate() {
    await generate({
      store: appStore,
      api,
      catalogue,
      studio,
      tab,
      config,
      onCreated: (id) => {
        showToast(appStore, t('CreateSuccess'));
        trackTask(id);
        setRevision((r) => r + 1);
        void refreshBalance(token);
      },
    });
  }

  return (
    <div className="gen-bar">
      {problem && (
        <p className="form-error" role="alert" data-testid="gen-problem" data-key={problem.key ?? ''}>
          {problemText(t, problem)}
        </p>
      )}
      <div className="gen-bar__row">
        <div className="gen-bar__info" aria-live="polite">
          {role === 'visitor' ? (
            <span>{estimate !== null && estimate.freeLeft !== null ? t('gen.freeLeft', { n: estimate.freeLeft }) : t('gen.visitorNote')}</span>
          ) : (
            <>
              <span data-testid="gen-cost">
                {estimate ? t('gen.costs', { n: estimate.coins }) : t('gen.costsUnknown')}
              </span>
              {shownBalance !== null && (
                <span className="muted" data-testid="gen-balance">
                  {t('gen.balance', { n: shownBalance })}
                </span>
              )}
              <LaneNote />
            </>
          )}
        </div>
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
