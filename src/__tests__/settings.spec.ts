import schema from '../../schema/plugin.json';
import { readSettings, sampleFraction } from '../settings';
import { DEFAULT_SETTINGS, ISettings } from '../tokens';

describe('readSettings', () => {
  it('gives the defaults when nothing is stored', () => {
    expect(readSettings({})).toEqual(DEFAULT_SETTINGS);
  });

  it('reads every setting of the right type', () => {
    const stored: ISettings = {
      measure: false,
      timeBudget: 30,
      allPipelines: true,
      inlineSuggestions: false,
      measureTimeLimit: 5,
      measureSamplePercent: 10
    };
    expect(readSettings({ ...stored })).toEqual(stored);
  });

  it.each<[string, unknown, unknown]>([
    ['measure', 'yes', DEFAULT_SETTINGS.measure],
    ['measure', 0, DEFAULT_SETTINGS.measure],
    ['timeBudget', '30', DEFAULT_SETTINGS.timeBudget],
    ['timeBudget', null, DEFAULT_SETTINGS.timeBudget],
    ['allPipelines', 1, DEFAULT_SETTINGS.allPipelines],
    ['inlineSuggestions', [], DEFAULT_SETTINGS.inlineSuggestions],
    ['measureTimeLimit', { seconds: 5 }, DEFAULT_SETTINGS.measureTimeLimit],
    ['measureSamplePercent', '1%', DEFAULT_SETTINGS.measureSamplePercent]
  ])(
    'falls back to the default of %s when the stored value %j has the wrong type',
    (key, value, expected) => {
      const settings = readSettings({ [key]: value }) as unknown as {
        [key: string]: unknown;
      };
      expect(settings[key]).toEqual(expected);
    }
  );

  it('keeps the other settings when one has the wrong type', () => {
    expect(readSettings({ measure: 'yes', timeBudget: 30 })).toEqual({
      ...DEFAULT_SETTINGS,
      timeBudget: 30
    });
  });

  it('ignores settings it does not know', () => {
    expect(readSettings({ theme: 'dark' })).toEqual(DEFAULT_SETTINGS);
  });
});

describe('the settings schema', () => {
  const properties = schema.properties as {
    [key: string]: { default: unknown };
  };

  it('names exactly the settings the extension reads', () => {
    expect(Object.keys(properties).sort()).toEqual(
      Object.keys(DEFAULT_SETTINGS).sort()
    );
  });

  it.each(Object.keys(DEFAULT_SETTINGS) as (keyof ISettings)[])(
    'has the default of %s that the extension falls back to',
    key => {
      expect(properties[key].default).toEqual(DEFAULT_SETTINGS[key]);
    }
  );
});

describe('sampleFraction', () => {
  it.each([
    ['1% is a hundredth of the rows', 1, 0.01],
    ['100% counts every row', 100, 1],
    ['more than 100% is still every row', 250, 1],
    ['the smallest sample is a thousandth of the rows', 0.01, 0.001],
    ['a negative share is the smallest sample', -5, 0.001]
  ])('%s', (_, percent, fraction) => {
    const settings = { ...DEFAULT_SETTINGS, measureSamplePercent: percent };
    expect(sampleFraction(settings)).toBeCloseTo(fraction, 10);
  });
});
