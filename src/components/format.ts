/** Display helpers shared by the components. */

import { ITimeSaved } from '../contract';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatRows(n: number): string {
  return integer.format(n);
}

/** "1 row" / "3 rows". */
export function pluralRows(n: number): string {
  return `${formatRows(n)} ${n === 1 ? 'row' : 'rows'}`;
}

/** A reduction in [0, 1] as a signed percentage: 0.996 -> "−99.6%". */
export function formatReduction(reduction: number): string {
  const percent = Math.abs(reduction * 100).toFixed(1);
  const sign = reduction > 0 ? '\u2212' : reduction < 0 ? '+' : '';
  return `${sign}${percent}%`;
}

/** Seconds with two significant digits: 19 s, 1.2 s, 0.034 s, 2 min 5 s past two minutes. */
export function formatSeconds(seconds: number): string {
  if (seconds >= 120) {
    const minutes = Math.floor(seconds / 60);
    return `${minutes} min ${Math.round(seconds - 60 * minutes)} s`;
  }
  return `${Number(seconds.toPrecision(2))} s`;
}

/** The saving of a time estimate, in short: "≈ 19 s less per run", or null without one. */
export function savingText(
  saved: { seconds: number | null } | null | undefined
): string | null {
  return saved && saved.seconds !== null
    ? `≈ ${formatSeconds(saved.seconds)} less per run`
    : null;
}

/** How a time estimate was made, in one sentence. */
export function savingBasis(saved: ITimeSaved): string {
  if (saved.seconds === null || saved.seconds_per_row === undefined) {
    return `No time estimate: ${saved.note ?? 'not timed'}.`;
  }
  const perRow = saved.seconds_per_row * 1e6;
  return (
    `An estimate: the pipeline took ${Number(perRow.toPrecision(2))} µs more per row ` +
    `on the source's first ${formatRows(saved.sample_rows ?? 0)} rows than on its first ` +
    `${formatRows(saved.small_rows ?? 0)}, times the ${formatRows(saved.rows_removed ?? 0)} ` +
    'rows the filter removes at the source.'
  );
}
