import * as React from 'react';

import { graphLayout, NODE_H, NODE_W } from '../graphLayout';
import { IPipelineGraph, IPipelineNode } from '../tokens';

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
  /** The steps that stopped a filter, each with its reason. */
  blocked?: ReadonlyMap<number, string>;
}): JSX.Element {
  const { graph, lateFilters, targets } = props;
  const blocked = props.blocked ?? new Map<number, string>();
  const { x, y, width, height } = graphLayout(graph.nodes);
  const role = (n: IPipelineNode): string =>
    lateFilters.has(n.id)
      ? 'late'
      : targets.has(n.id)
        ? 'target'
        : blocked.has(n.id)
          ? 'blocked'
          : n.what.startsWith('barrier')
            ? 'barrier'
            : 'plain';
  const explain = (n: IPipelineNode): string => {
    const where = n.cell !== null ? ` (cell [${n.cell}])` : '';
    const mark = lateFilters.has(n.id)
      ? '\nthe filter is here now'
      : targets.has(n.id)
        ? '\nthe filter moves here'
        : blocked.has(n.id)
          ? `\nthe filter stops here: ${blocked.get(n.id)}`
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
