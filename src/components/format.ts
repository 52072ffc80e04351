/** Display helpers shared by the components. */

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
