/**
 * The user's settings (schema/plugin.json) as a typed object, and the figures
 * derived from them. Pure: no setting registry needed.
 */

import { DEFAULT_SETTINGS, ISettings } from './tokens';

/**
 * The settings in `composite` (the setting registry's merged user and default
 * values); each value falls back to its default when the stored one is missing
 * or has the wrong type.
 */
export function readSettings(composite: {
  readonly [key: string]: unknown;
}): ISettings {
  const read = <K extends keyof ISettings>(key: K): ISettings[K] => {
    const value = composite[key];
    return typeof value === typeof DEFAULT_SETTINGS[key]
      ? (value as ISettings[K])
      : DEFAULT_SETTINGS[key];
  };
  return {
    measure: read('measure'),
    timeBudget: read('timeBudget'),
    allPipelines: read('allPipelines'),
    inlineSuggestions: read('inlineSuggestions'),
    measureTimeLimit: read('measureTimeLimit'),
    measureSamplePercent: read('measureSamplePercent')
  };
}

/** The share of a source's rows an estimate counts, in [0.001, 1]. */
export function sampleFraction(settings: ISettings): number {
  return Math.min(1, Math.max(0.001, settings.measureSamplePercent / 100));
}
