import {
  GAP_X,
  GAP_Y,
  graphLayout,
  layers,
  NODE_H,
  NODE_W
} from '../graphLayout';
import { IPipelineNode } from '../tokens';

/** A node with only its id and inputs filled in. */
function node(id: number, inputs: number[] = []): IPipelineNode {
  return { id, op: 'op', label: `n${id}`, inputs, cell: null, what: '' };
}

/** The layers as a plain object, id -> layer, for toEqual. */
function layersOf(nodes: IPipelineNode[]): { [id: number]: number } {
  return Object.fromEntries(layers(nodes));
}

describe('layers', () => {
  it.each<[string, IPipelineNode[], { [id: number]: number }]>([
    ['a source alone is layer 0', [node(1)], { 1: 0 }],
    [
      'a chain climbs one layer per call',
      [node(1), node(2, [1]), node(3, [2])],
      { 1: 0, 2: 1, 3: 2 }
    ],
    [
      'a call sits one layer above its deepest input',
      [node(1), node(2, [1]), node(3, [2]), node(4), node(5, [3, 4])],
      { 1: 0, 2: 1, 3: 2, 4: 0, 5: 3 }
    ],
    [
      'the order of the nodes does not matter',
      [node(3, [2]), node(2, [1]), node(1)],
      { 1: 0, 2: 1, 3: 2 }
    ],
    [
      'an input that is not among the nodes counts as a source',
      [node(2, [7])],
      { 7: 0, 2: 1 }
    ],
    [
      'two sources of one join share layer 0',
      [node(1), node(2), node(3, [1, 2])],
      { 1: 0, 2: 0, 3: 1 }
    ],
    ['no nodes, no layers', [], {}]
  ])('%s', (_, nodes, expected) => {
    expect(layersOf(nodes)).toEqual(expected);
  });
});

describe('graphLayout', () => {
  const column = (c: number): number => 4 + c * (NODE_W + GAP_X);
  const row = (r: number): number => 4 + r * (NODE_H + GAP_Y);

  it('draws a chain as one column, its sink at the top and its source at the bottom', () => {
    const layout = graphLayout([node(1), node(2, [1]), node(3, [2])]);
    expect([1, 2, 3].map(id => [layout.x(id), layout.y(id)])).toEqual([
      [column(0), row(2)],
      [column(0), row(1)],
      [column(0), row(0)]
    ]);
    expect(layout.width).toBe(8 + NODE_W);
    expect(layout.height).toBe(8 + 3 * NODE_H + 2 * GAP_Y);
  });

  it('places the nodes of one layer side by side, in the order given', () => {
    const layout = graphLayout([node(1), node(2), node(3, [1, 2])]);
    expect([1, 2, 3].map(id => [layout.x(id), layout.y(id)])).toEqual([
      [column(0), row(1)],
      [column(1), row(1)],
      [column(0), row(0)]
    ]);
    expect(layout.width).toBe(8 + 2 * NODE_W + GAP_X);
    expect(layout.height).toBe(8 + 2 * NODE_H + GAP_Y);
  });

  it('places an input that is not among the nodes as a source in the first column', () => {
    const layout = graphLayout([node(2, [7])]);
    expect([layout.x(7), layout.y(7)]).toEqual([column(0), row(1)]);
  });

  it('an empty graph is one empty node big', () => {
    const layout = graphLayout([]);
    expect([layout.width, layout.height]).toEqual([8 + NODE_W, 8 + NODE_H]);
  });
});
