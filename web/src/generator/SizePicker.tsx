import { useId } from 'react';
import { useT } from '../i18n/useT';
import { aspectMatches, aspectsFor, CUSTOM_ASPECT, limitsFor, matchAspect } from './catalogue';
import { useWorkspace } from './useWorkspace';

/**
 * Aspect options with the family's standard or quality sizes, or the studio
 * presets; a size typed by hand selects the option it matches (spec 1 §5:
 * |w/rw − h/rh| < 5), else custom.
 */
export function SizePicker() {
  const t = useT();
  const widthId = useId();
  const heightId = useId();
  const qualityId = useId();
  const { catalogue, studio, config, update, family } = useWorkspace();
  const limits = limitsFor(catalogue, family, studio);

  const options: { key: string; label: string; width: number; height: number }[] = studio
    ? catalogue.studio_presets.map((p) => ({ key: p.label, label: p.label, width: p.width, height: p.height }))
    : aspectsFor(catalogue, family)
        .filter((a) => a.code !== CUSTOM_ASPECT)
        .flatMap((a) => {
          const s = a.sizes.find((x) => x.family === family);
          if (!s) return [];
          const size = config.quality ? s.quality : s.standard;
          return [{ key: String(a.code), label: a.label, ...size }];
        });
  const matched = studio
    ? (catalogue.studio_presets.find((p) => {
        const [rw, rh] = p.label.split(':').map(Number);
        return rw !== undefined && rh !== undefined && aspectMatches(config.width, config.height, rw, rh);
      })?.label ?? '')
    : String(matchAspect(config.width, config.height, aspectsFor(catalogue, family)));

  return (
    <fieldset className="gen-fieldset">
      <legend>{t('gen.size')}</legend>
      <div className="gen-aspects" role="radiogroup" aria-label={t('gen.aspect')}>
        {options.map((o) => (
          <button
            key={o.key}
            type="button"
            role="radio"
            aria-checked={matched === o.key}
            className="gen-aspects__opt"
            title={`${o.width} × ${o.height}`}
            onClick={() => update({ width: o.width, height: o.height })}
          >
            <span className="gen-aspects__label">{o.label}</span>
            <span className="gen-aspects__px">
              {o.width}×{o.height}
            </span>
          </button>
        ))}
        <span className={`gen-aspects__opt gen-aspects__custom${matched === String(CUSTOM_ASPECT) || matched === '' ? ' is-on' : ''}`}>
          {t('gen.aspectCustom')}
        </span>
      </div>
      <div className="gen-row">
        <div className="field">
          <label htmlFor={widthId}>{t('gen.width')}</label>
          <input
            id={widthId}
            type="number"
            inputMode="numeric"
            min={limits?.min}
            max={limits?.quality_max}
            step={8}
            value={config.width}
            onChange={(e) => update({ width: Math.max(0, Math.round(Number(e.currentTarget.value) || 0)) })}
          />
        </div>
        <div className="field">
          <label htmlFor={heightId}>{t('gen.height')}</label>
          <input
            id={heightId}
            type="number"
            inputMode="numeric"
            min={limits?.min}
            max={limits?.quality_max}
            step={8}
            value={config.height}
            onChange={(e) => update({ height: Math.max(0, Math.round(Number(e.currentTarget.value) || 0)) })}
          />
        </div>
        {!studio && (
          <label className="gen-check" htmlFor={qualityId}>
            <input
              id={qualityId}
              type="checkbox"
              checked={config.quality}
              onChange={(e) => {
                const quality = e.currentTarget.checked;
                update((c) => {
                  const code = matchAspect(c.width, c.height, aspectsFor(catalogue, family));
                  const s = catalogue.aspects.find((a) => a.code === code)?.sizes.find((x) => x.family === family);
                  const size = s ? (quality ? s.quality : s.standard) : { width: c.width, height: c.height };
                  return { ...c, quality, ...size };
                });
              }}
            />
            {t('gen.quality')}
          </label>
        )}
      </div>
      {limits && (
        <p className="muted gen-small">
          {t('gen.sizeLimits', { min: limits.min, max: limits.quality_max })}
        </p>
      )}
    </fieldset>
  );
}
