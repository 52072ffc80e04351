import * as React from 'react';

import {
  cellRef,
  cellsRef,
  ICellRef,
  promptOf,
  splitCellRefs
} from '../cellRefs';
import { MagicPushModel } from '../model';
import { codeSpans } from '../why';
import { useModel } from './useModel';

/** The model whose shown result the cell links of a view refer to. */
export const ModelContext = React.createContext<MagicPushModel | null>(null);

/** A prompt such as "[3]" that scrolls to its cell and selects it. */
function Link(props: {
  text: string;
  label: string;
  onClick: () => void;
}): JSX.Element {
  return (
    <button
      type="button"
      className="jp-MagicPush-cellLink"
      onClick={props.onClick}
      aria-label={`Go to ${props.label}`}
      title={`Scroll to ${props.label} and select it`}
    >
      {props.text}
    </button>
  );
}

/** The cells of the result at `positions`, read from the live notebook. */
function useRefs(model: MagicPushModel, positions: number[]): ICellRef[] {
  const key = positions.join(',');
  return useModel(model, m =>
    key === '' ? [] : key.split(',').map(p => m.cellRefAt(Number(p)))
  );
}

/**
 * "cells [3] and [5]": the result's cells at `positions`, named by the prompts they show
 * now, each a link to its cell. Without a model, the same words without links.
 */
export function CellLinks(props: { positions: number[] }): JSX.Element {
  const model = React.useContext(ModelContext);
  if (!model) {
    return (
      <>{cellsRef(props.positions.map(p => ({ position: p, count: null })))}</>
    );
  }
  return <LiveCellLinks model={model} positions={props.positions} />;
}

function LiveCellLinks(props: {
  model: MagicPushModel;
  positions: number[];
}): JSX.Element {
  const refs = useRefs(props.model, props.positions);
  const counted = refs.filter(r => r.count !== null).length;
  const word = counted === 0 ? '' : refs.length === 1 ? 'cell ' : 'cells ';
  return (
    <span className="jp-MagicPush-cellLinks">
      {word}
      {refs.map((ref, i) => (
        <React.Fragment key={ref.position}>
          {i > 0 && (i === refs.length - 1 ? ' and ' : ', ')}
          <Link
            text={promptOf(ref)}
            label={cellRef(ref)}
            onClick={() => props.model.revealCell(ref.position)}
          />
        </React.Fragment>
      ))}
    </span>
  );
}

/** The words naming the result's cells at `positions` (for labels): "cells [3] and [5]". */
export function useCellsText(positions: number[]): string {
  const model = React.useContext(ModelContext);
  const key = positions.join(',');
  const [, rerender] = React.useState(0);
  React.useEffect(() => {
    if (!model) {
      return;
    }
    const update = (): void => rerender(n => n + 1);
    model.changed.connect(update);
    return () => {
      model.changed.disconnect(update);
    };
  }, [model]);
  const refs =
    key === ''
      ? []
      : key
          .split(',')
          .map(p =>
            model
              ? model.cellRefAt(Number(p))
              : { position: Number(p), count: null }
          );
  return cellsRef(refs);
}

/**
 * Text in which `code` shows as code and each "cell [N]" whose cell is still in the notebook
 * is a link to it.
 */
export function TextWithCellLinks(props: { text: string }): JSX.Element {
  return (
    <>
      {codeSpans(props.text).map((span, i) =>
        span.code ? (
          <code key={i}>{span.text}</code>
        ) : (
          <CellLinksIn key={i} text={span.text} />
        )
      )}
    </>
  );
}

function CellLinksIn(props: { text: string }): JSX.Element {
  const model = React.useContext(ModelContext);
  const parts = splitCellRefs(props.text);
  return (
    <>
      {parts.map((part, i) =>
        'count' in part && model && model.hasCount(part.count) ? (
          <Link
            key={i}
            text={part.text}
            label={part.text}
            onClick={() => model.revealCount(part.count)}
          />
        ) : (
          <React.Fragment key={i}>{part.text}</React.Fragment>
        )
      )}
    </>
  );
}
