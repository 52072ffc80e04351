import * as React from 'react';

import { IPipelineGraph, IPipelineNode } from '../tokens';

const NODE_W = 92;
const NODE_H = 22;
const GAP_X = 12;
const GAP_Y = 18;

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

function short(text: string): string {
  return text.length > 13 ? `${text.slice(0, 12)}…` : text;
}

/**
 * The pipeline's calls as a small graph, sources at the bottom: the late filter a
 * suggestion moves is marked where it is now, the sources it moves to where it goes, and
 * barriers say why on hover.
 */
export function PipelineGraph(props: {
  graph: IPipelineGraph;
  lateFilters: ReadonlySet<number>;
  targets: ReadonlySet<number>;
}): JSX.Element {
  const { graph, lateFilters, targets } = props;
  const depth = layers(graph.nodes);
  const top = Math.max(0, ...graph.nodes.map(n => depth.get(n.id) ?? 0));
  const column = new Map<number, number>();
  const perLayer = new Map<number, number>();
  for (const n of graph.nodes) {
    const d = depth.get(n.id) ?? 0;
    column.set(n.id, perLayer.get(d) ?? 0);
    perLayer.set(d, (perLayer.get(d) ?? 0) + 1);
  }
  const widest = Math.max(1, ...perLayer.values());
  const x = (id: number): number =>
    4 + (column.get(id) ?? 0) * (NODE_W + GAP_X);
  const y = (id: number): number =>
    4 + (top - (depth.get(id) ?? 0)) * (NODE_H + GAP_Y);
  const width = 8 + widest * NODE_W + (widest - 1) * GAP_X;
  const height = 8 + (top + 1) * NODE_H + top * GAP_Y;
  const role = (n: IPipelineNode): string =>
    lateFilters.has(n.id)
      ? 'late'
      : targets.has(n.id)
        ? 'target'
        : n.what.startsWith('barrier')
          ? 'barrier'
          : 'plain';
  const explain = (n: IPipelineNode): string => {
    const where = n.cell !== null ? ` (cell [${n.cell}])` : '';
    const mark = lateFilters.has(n.id)
      ? '\nthe filter is here now'
      : targets.has(n.id)
        ? '\nthe filter moves here'
        : '';
    return `${n.op}${where}: ${n.what || 'not described'}${mark}`;
  };
  return (
    <figure className="jp-MagicPush-graph">
      <figcaption>
        Pipeline <code>{graph.name}</code>
      </figcaption>
      <svg
        width={width}
        height={height}
        role="img"
        aria-label={`Pipeline ${graph.name}: ${graph.nodes.map(n => n.label).join(', ')}`}
      >
        {graph.nodes.flatMap(n =>
          n.inputs.map(i => (
            <line
              key={`${i}-${n.id}`}
              className="jp-MagicPush-graphEdge"
              x1={x(i) + NODE_W / 2}
              y1={y(i)}
              x2={x(n.id) + NODE_W / 2}
              y2={y(n.id) + NODE_H}
            />
          ))
        )}
        {graph.nodes.map(n => (
          <g
            key={n.id}
            className={`jp-MagicPush-graphNode jp-MagicPush-graphNode-${role(n)}`}
            data-event={n.id}
          >
            <title>{explain(n)}</title>
            <rect
              x={x(n.id)}
              y={y(n.id)}
              width={NODE_W}
              height={NODE_H}
              rx={4}
            />
            <text x={x(n.id) + NODE_W / 2} y={y(n.id) + NODE_H / 2}>
              {short(n.label)}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
