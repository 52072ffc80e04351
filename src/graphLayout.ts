/**
 * Where each call of a pipeline graph goes in its drawing: sources at the bottom,
 * each call one layer above its deepest input. Pure: no DOM needed.
 */

import { IPipelineNode } from './tokens';

export const NODE_W = 92;
export const NODE_H = 22;
export const GAP_X = 12;
export const GAP_Y = 18;
/** The margin around the nodes. */
const PAD = 4;

/** Each node's layer: 0 for sources, else one more than its deepest input. */
export function layers(nodes: IPipelineNode[]): Map<number, number> {
  const byId = new Map(nodes.map(n => [n.id, n]));
  const depth = new Map<number, number>();
  const of = (id: number): number => {
    const known = depth.get(id);
    if (known !== undefined) {
      return known;
    }
    const node = byId.get(id);
    const d =
      node && node.inputs.length > 0 ? 1 + Math.max(...node.inputs.map(of)) : 0;
    depth.set(id, d);
    return d;
  };
  nodes.forEach(n => of(n.id));
  return depth;
}

/** The drawing of a graph: where each node's top-left corner goes, and the size of the whole. */
export interface IGraphLayout {
  x(id: number): number;
  y(id: number): number;
  width: number;
  height: number;
}

/**
 * Each node's position: its layer gives the row (the top layer at the top), its
 * order among the nodes of that layer the column. An input that is not among the
 * nodes is placed as a source in the first column.
 */
export function graphLayout(nodes: IPipelineNode[]): IGraphLayout {
  const depth = layers(nodes);
  const top = Math.max(0, ...nodes.map(n => depth.get(n.id) ?? 0));
  const column = new Map<number, number>();
  const perLayer = new Map<number, number>();
  for (const n of nodes) {
    const d = depth.get(n.id) ?? 0;
    column.set(n.id, perLayer.get(d) ?? 0);
    perLayer.set(d, (perLayer.get(d) ?? 0) + 1);
  }
  const widest = Math.max(1, ...perLayer.values());
  return {
    x: id => PAD + (column.get(id) ?? 0) * (NODE_W + GAP_X),
    y: id => PAD + (top - (depth.get(id) ?? 0)) * (NODE_H + GAP_Y),
    width: 2 * PAD + widest * NODE_W + (widest - 1) * GAP_X,
    height: 2 * PAD + (top + 1) * NODE_H + top * GAP_Y
  };
}
