import {
  DiffTarget,
  findTarget,
  targetCells,
  targetKey,
  targetOfArgs,
  targetTitle,
  TargetResult
} from '../sideBySide';
import { ISuggestion, ITogether } from '../tokens';

/** A suggestion with only what a side-by-side tab looks at filled in. */
function suggestion(
  source: string,
  predicate: string,
  pipeline: string | null = 'out'
): ISuggestion {
  return {
    source,
    predicate,
    kind: 'equivalent',
    proof: [],
    cells: [{ index: 0, original: source, rewritten: `${source}.filter()` }],
    source_event: 0,
    predicate_ir: {},
    rows_before: null,
    rows_after: null,
    row_reduction: null,
    estimated: false,
    pipeline
  };
}

function together(pipeline: string, suggestions: number): ITogether {
  return {
    pipeline,
    kind: 'equivalent',
    cells: [{ index: 1, original: 'x', rewritten: 'y' }],
    suggestions
  };
}

const JOIN: TargetResult = {
  suggestions: [suggestion('a', 'v > 4'), suggestion('b', 'x < 3')],
  together: [together('out', 2)]
};

describe('targetTitle', () => {
  it.each<{
    case: string;
    result: TargetResult;
    target: DiffTarget;
    title: string;
  }>([
    {
      case: 'a suggestion: its pipeline and its source',
      result: {
        suggestions: [suggestion('orders', 'amount > 950', 'big_earners')]
      },
      target: { kind: 'one', index: 0 },
      title: 'Diff: big_earners — filter on orders'
    },
    {
      case: 'a pipeline not named: the source alone',
      result: { suggestions: [suggestion('orders', 'amount > 950', null)] },
      target: { kind: 'one', index: 0 },
      title: 'Diff: filter on orders'
    },
    {
      case: 'two filters of a pipeline on one source: numbered',
      result: {
        suggestions: [suggestion('t', 'v > 1'), suggestion('t', 'w < 2')]
      },
      target: { kind: 'one', index: 1 },
      title: 'Diff: out — filter 2 on t'
    },
    {
      case: 'one source in two pipelines: not numbered',
      result: {
        suggestions: [
          suggestion('t', 'v > 1', 'p'),
          suggestion('t', 'v > 1', 'q')
        ]
      },
      target: { kind: 'one', index: 1 },
      title: 'Diff: q — filter on t'
    },
    {
      case: 'a joint rewrite: all filters of its pipeline',
      result: JOIN,
      target: { kind: 'together', pipeline: 'out' },
      title: 'Diff: out — all 2 filters'
    }
  ])('$case', ({ result, target, title }) => {
    expect(targetTitle(result, target)).toBe(title);
  });
});

describe('a tab across results', () => {
  it.each<{
    case: string;
    next: TargetResult;
    target: DiffTarget;
    found: DiffTarget | null;
  }>([
    {
      case: 'the same suggestion at another index is found there',
      next: { suggestions: [JOIN.suggestions[1], JOIN.suggestions[0]] },
      target: { kind: 'one', index: 0 },
      found: { kind: 'one', index: 1 }
    },
    {
      case: 'a suggestion no longer offered (applied, say) is not found',
      next: { suggestions: [JOIN.suggestions[1]] },
      target: { kind: 'one', index: 0 },
      found: null
    },
    {
      case: 'another predicate on the same source is another suggestion',
      next: { suggestions: [suggestion('a', 'v > 5')] },
      target: { kind: 'one', index: 0 },
      found: null
    },
    {
      case: 'a joint rewrite is found by its pipeline',
      next: { suggestions: [], together: [together('out', 3)] },
      target: { kind: 'together', pipeline: 'out' },
      found: { kind: 'together', pipeline: 'out' }
    },
    {
      case: 'a joint rewrite gone is not found',
      next: { suggestions: JOIN.suggestions },
      target: { kind: 'together', pipeline: 'out' },
      found: null
    }
  ])('$case', ({ next, target, found }) => {
    expect(findTarget(next, targetKey(JOIN, target))).toEqual(found);
  });

  it('refuses a target the result does not have', () => {
    expect(() => targetKey(JOIN, { kind: 'one', index: 5 })).toThrow(
      'There is no suggestion 6'
    );
    expect(() =>
      targetKey(JOIN, { kind: 'together', pipeline: 'other' })
    ).toThrow('There is no joint rewrite for pipeline other');
  });
});

describe('targetCells', () => {
  it('gives a suggestion its cells, a joint rewrite the joint cells', () => {
    expect(targetCells(JOIN, { kind: 'one', index: 1 })).toEqual(
      JOIN.suggestions[1].cells
    );
    expect(targetCells(JOIN, { kind: 'together', pipeline: 'out' })).toEqual(
      JOIN.together![0].cells
    );
  });
});

describe('targetOfArgs', () => {
  it.each<{ args: Record<string, unknown>; target: DiffTarget | null }>([
    { args: { kind: 'one', index: 2 }, target: { kind: 'one', index: 2 } },
    {
      args: { kind: 'together', pipeline: 'out' },
      target: { kind: 'together', pipeline: 'out' }
    },
    { args: { kind: 'one' }, target: null },
    { args: {}, target: null }
  ])('$args', ({ args, target }) => {
    if (target) {
      expect(targetOfArgs(args)).toEqual(target);
    } else {
      expect(() => targetOfArgs(args)).toThrow('Open side by side needs');
    }
  });
});
