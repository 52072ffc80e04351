/**
 * "Why" in the user's terms: how the pushed predicate relates to the late filter, in words,
 * from what a suggestion carries; the proof's categories come after, as detail. Pure
 * functions over the result, so no notebook is needed.
 */

import { IProofStep, IRefusal, ISuggestion } from './tokens';

/** What a proof category checks, in plain words (suggestion.py's CATEGORY_WORDS). */
export const CATEGORY_WORDS: Record<string, string> = {
  'ROW-TO-ROW': 'row by row',
  AGGREGATE: 'group by group',
  LEFTOUTERJ: 'row by row, unmatched rows included',
  FULLOUTERJ: 'row by row, unmatched rows of both sides included',
  'ROW-EXPAND': 'each row with the rows it expands to',
  TOPK: "across the sort's cut-off",
  SUBPIPELINE: 'group by group, inside the function',
  'ROW-ITER-PIPELINE': "over the loop's rows, by induction",
  'ROW-ITER': "over the loop's rows, by induction"
};

/** A step's plain words: "row by row". */
export function categoryWords(step: IProofStep): string {
  return CATEGORY_WORDS[step.category] ?? 'checked';
}

/**
 * PySpark Column code as a user reads it: `F.col("points") > 1000` becomes `points > 1000`
 * (any alias of pyspark.sql.functions, either quote).
 */
export function readable(code: string): string {
  return code
    .replace(/\b\w+\.col\((["'])([A-Za-z_][A-Za-z0-9_]*)\1\)/g, '$2')
    .replace(/^\((.*)\)$/s, (whole, inner: string) =>
      balanced(inner) ? inner : whole
    );
}

function balanced(code: string): boolean {
  let depth = 0;
  for (const ch of code) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    if (depth < 0) {
      return false;
    }
  }
  return depth === 0;
}

/**
 * The first sentence of Why: the predicate's relation to the late filter, in words. Code is
 * between backticks (a view shows it as code).
 */
export function relation(
  s: Pick<
    ISuggestion,
    'predicate' | 'kind' | 'source' | 'late_predicate' | 'late_filter_in_pandas'
  >
): string {
  const pushed = `\`${readable(s.predicate)}\``;
  const late = s.late_predicate
    ? `\`${readable(s.late_predicate)}\``
    : 'the late filter';
  if (s.late_filter_in_pandas) {
    // the pandas filter always stays: only rows it drops are kept from crossing into Python
    return (
      `Every row the pandas code ${late} keeps has ${pushed} at \`${s.source}\`, so filtering ` +
      'there first moves fewer rows into Python and loses none of them; the pandas filter stays.'
    );
  }
  if (s.kind === 'equivalent') {
    return (
      `${capital(late)} holds exactly when ${pushed} does, for every row of \`${s.source}\`: ` +
      `filtering \`${s.source}\` by ${pushed} keeps the same rows, and the late filter goes.`
    );
  }
  return (
    `Every row kept by ${late} has ${pushed} at \`${s.source}\`, so filtering there first ` +
    'loses none of them; the late filter stays to drop the rest.'
  );
}

function capital(text: string): string {
  return text.startsWith('`') ? text : text[0].toUpperCase() + text.slice(1);
}

/** Text split at its backticks: odd parts are code. */
export function codeSpans(text: string): { code: boolean; text: string }[] {
  return text
    .split('`')
    .map((part, i) => ({ code: i % 2 === 1, text: part }))
    .filter(part => part.text !== '');
}

/** One step that stopped filters: its note (said once), and its refusals. */
export interface IBlockingStep {
  note: string;
  event: number | null;
  refusals: IRefusal[];
}

/**
 * Refusals grouped by the step that made them: one entry per note, in the order met, so the
 * reason is said once however many late filters it stopped.
 */
export function blockingSteps(refusals: IRefusal[]): IBlockingStep[] {
  const steps = new Map<string, IBlockingStep>();
  for (const r of refusals) {
    const note = r.note ?? `${r.operator}: ${r.reason}`;
    const step = steps.get(note);
    if (step) {
      step.refusals.push(r);
    } else {
      steps.set(note, { note, event: r.event ?? null, refusals: [r] });
    }
  }
  return [...steps.values()];
}

/**
 * A step's note without the counterexample it spells out inline, for a view that shows the
 * same rows as a table: the " (`candidate` at the source would change the result on ...)" part.
 */
export function withoutInlineRows(note: string, candidate: string): string {
  const start = note.indexOf(
    ` (\`${candidate}\` at the source would change the result on `
  );
  if (start < 0) {
    return note;
  }
  let depth = 0;
  for (let i = start + 1; i < note.length; i++) {
    depth += note[i] === '(' ? 1 : note[i] === ')' ? -1 : 0;
    if (depth === 0) {
      return note.slice(0, start) + note.slice(i + 1);
    }
  }
  return note;
}

/** The steps of `pipeline` that stopped a filter, by trace event, each with its reason. */
export function blockedEvents(
  refusals: IRefusal[],
  pipeline: string
): Map<number, string> {
  const found = new Map<number, string>();
  for (const r of refusals) {
    if (r.pipeline === pipeline && r.event !== null && r.event !== undefined) {
      found.set(r.event, found.get(r.event) ?? r.reason);
    }
  }
  return found;
}

/** The result's notes that no refusal already shows (a refusal shows its step's note). */
export function otherNotes(notes: string[], refusals: IRefusal[]): string[] {
  const shown = new Set(refusals.map(r => r.note).filter(n => n));
  return notes.filter(n => !shown.has(n));
}
