import { useT } from '../i18n/useT';
import type { WorkDetail } from '../square/types';
import { appStore } from '../state/jotai';
import { generateSame } from './generateSame';

/** A picture work's generation parameters (unless hidden) and "Generate the same". */
export function ParamsPanel({ work }: { work: WorkDetail }) {
  const t = useT();
  if (work.params.length === 0) {
    return work.hide_params ? <p className="muted work__params-hidden">{t('works.params.hidden')}</p> : null;
  }
  return (
    <section className="work__params" aria-label={t('works.params.title')} data-testid="work-params">
      <h2 className="work__h2">{t('works.params.title')}</h2>
      {work.params.map((p, i) => (
        <div key={i} className="work__param-set">
          <dl>
            <dt>{t('works.params.prompt')}</dt>
            <dd className="work__prompt">{p.prompt || '—'}</dd>
            {p.negative_prompt !== '' && (
              <>
                <dt>{t('works.params.negative')}</dt>
                <dd className="work__prompt">{p.negative_prompt}</dd>
              </>
            )}
            <dt>{t('works.params.model')}</dt>
            <dd>{p.model_name || p.model || '—'}</dd>
            <dt>{t('works.params.seed')}</dt>
            <dd>{p.seed}</dd>
            <dt>{t('works.params.size')}</dt>
            <dd>
              {p.width} × {p.height}
            </dd>
            {p.steps > 0 && (
              <>
                <dt>{t('works.params.steps')}</dt>
                <dd>
                  {p.steps}
                  {p.cfg_scale > 0 && ` · CFG ${p.cfg_scale}`}
                  {p.sampler !== '' && ` · ${p.sampler}`}
                </dd>
              </>
            )}
            {p.engine !== '' && (
              <>
                <dt>{t('works.params.engine')}</dt>
                <dd>{p.engine}</dd>
              </>
            )}
          </dl>
          <button type="button" className="button button--primary" onClick={() => void generateSame(appStore, p)} data-testid="generate-same">
            {t('works.params.generateSame')}
          </button>
        </div>
      ))}
      {work.hide_params && <p className="muted">{t('works.params.hiddenForOthers')}</p>}
    </section>
  );
}
