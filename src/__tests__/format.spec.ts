import { formatSeconds, savingBasis, savingText } from '../components/format';

describe('the estimated time saving', () => {
  it.each([
    [19.04, '19 s'],
    [1.234, '1.2 s'],
    [0.0342, '0.034 s'],
    [125.2, '2 min 5 s']
  ])('%d seconds read %s', (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });

  it.each([
    [{ seconds: 19 }, '≈ 19 s less per run'],
    [{ seconds: null, note: 'no rows' }, null],
    [null, null]
  ])('%j is shown as %s', (saved, text) => {
    expect(savingText(saved)).toBe(text);
  });

  it('says how the estimate was made, or why there is none', () => {
    expect(
      savingBasis({
        seconds: 19,
        seconds_per_row: 2e-5,
        sample_rows: 50000,
        small_rows: 10000,
        rows_removed: 950000
      })
    ).toBe(
      "An estimate: the pipeline took 20 µs more per row on the source's first 50,000 rows than on its first 10,000, times the 950,000 rows the filter removes at the source."
    );
    expect(savingBasis({ seconds: null, note: 'no rows' })).toBe(
      'No time estimate: no rows.'
    );
  });
});
