import {
  Fix,
  fixesFor,
  kernelError,
  NO_PYSPARK_IN_KERNEL,
  NOT_INSTALLED_IN_KERNEL,
  serverTracingError,
  TracingError,
  TracingErrorKind,
  usesPySpark
} from '../fixes';
import { INotebookCellPayload } from '../tokens';

function code(source: string): INotebookCellPayload {
  return { source, cell_type: 'code', id: null };
}

describe('kernelError', () => {
  it.each<[string, string, string, TracingErrorKind, string]>([
    [
      'magicpush_lab missing from the kernel',
      'ModuleNotFoundError',
      "No module named 'magicpush_lab'",
      'not-installed-in-kernel',
      NOT_INSTALLED_IN_KERNEL
    ],
    [
      'an ImportError inside magicpush_lab',
      'ImportError',
      "cannot import name 'kernel' from 'magicpush_lab'",
      'not-installed-in-kernel',
      NOT_INSTALLED_IN_KERNEL
    ],
    [
      'PySpark missing from the kernel',
      'ModuleNotFoundError',
      "No module named 'pyspark'",
      'no-pyspark',
      NO_PYSPARK_IN_KERNEL
    ],
    [
      'a PySpark submodule missing',
      'ModuleNotFoundError',
      "No module named 'pyspark.sql'",
      'no-pyspark',
      NO_PYSPARK_IN_KERNEL
    ],
    [
      'another missing module is shown as the kernel said it',
      'ModuleNotFoundError',
      "No module named 'pandas'",
      'kernel-error',
      "ModuleNotFoundError: No module named 'pandas'"
    ],
    [
      'an error naming magicpush_lab that is not an import error',
      'NameError',
      "name 'magicpush_lab' is not defined",
      'kernel-error',
      "NameError: name 'magicpush_lab' is not defined"
    ],
    [
      'an error without a value is its name',
      'KeyboardInterrupt',
      '',
      'kernel-error',
      'KeyboardInterrupt'
    ]
  ])('%s', (_, ename, evalue, kind, message) => {
    const error = kernelError(ename, evalue);
    expect(error).toBeInstanceOf(TracingError);
    expect(error.kind).toBe(kind);
    expect(error.message).toBe(message);
  });
});

describe('fixesFor', () => {
  it.each<[TracingErrorKind, Fix[]]>([
    ['not-installed-in-kernel', ['switch-kernel']],
    ['no-pyspark', ['install-pyspark']],
    ['tracing-off', ['load-extension']],
    ['not-a-trace', []],
    ['not-python', []],
    ['kernel-error', []]
  ])('%s offers %j', (kind, fixes) => {
    expect(fixesFor(kind)).toEqual(fixes);
  });

  it.each<[string, INotebookCellPayload[], Fix[]]>([
    [
      'nothing traced in a notebook that starts Spark: run its cells',
      [
        code(
          'from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()'
        )
      ],
      ['run-all']
    ],
    [
      'nothing traced in a notebook that uses a spark session: run its cells',
      [code('df = spark.read.parquet("x")')],
      ['run-all']
    ],
    [
      'nothing traced and no cell mentions Spark: start it, then run the cells',
      [code('import pandas as pd')],
      ['start-spark', 'run-all']
    ],
    [
      'Spark named only in markdown does not start it',
      [
        {
          source: 'Uses spark.read and SparkSession',
          cell_type: 'markdown',
          id: 'm'
        }
      ],
      ['start-spark', 'run-all']
    ],
    [
      'a name that merely ends in spark is not a session',
      [code('myspark.read.parquet("x")')],
      ['start-spark', 'run-all']
    ],
    ['nothing traced in an empty notebook', [], ['start-spark', 'run-all']]
  ])('%s', (_, cells, fixes) => {
    expect(fixesFor('nothing-traced', cells)).toEqual(fixes);
  });

  it('chooses by kind, not by message text', () => {
    const error = new TracingError('tracing-off', NOT_INSTALLED_IN_KERNEL);
    expect(fixesFor(error.kind)).toEqual(['load-extension']);
  });
});

describe('serverTracingError', () => {
  it.each([
    ['tracing_off', 'tracing-off'],
    ['not_installed_in_kernel', 'not-installed-in-kernel'],
    ['no_pyspark', 'no-pyspark']
  ])(
    'the server answering %s about the kernel is a %s tracing error',
    (server, kind) => {
      const error = serverTracingError(server, 'why');
      expect(error?.kind).toBe(kind);
      expect(error?.message).toBe('why');
    }
  );

  it.each([['kernel_error'], ['invalid_trace'], [null]])(
    'any other answer (%s) is not about tracing',
    kind => {
      expect(serverTracingError(kind, 'why')).toBeNull();
    }
  );
});

describe('usesPySpark', () => {
  it.each<[string, string, boolean]>([
    [
      'a pandas-only notebook',
      'import pandas as pd\ndf = pd.read_csv("x.csv")',
      false
    ],
    ['plain Python', 'x = 1 + 1', false],
    ['a PySpark import', 'from pyspark.sql import functions as F', true],
    ['a session used', 'df = spark.read.parquet("x")', true],
    ['a session built', 'SparkSession.builder.getOrCreate()', true],
    ['a word that only contains spark', 'sparkline = 3', false]
  ])('%s: %s', (_, source, expected) => {
    expect(usesPySpark([code(source)])).toBe(expected);
  });

  it('reads code cells only', () => {
    expect(
      usesPySpark([{ source: 'uses spark', cell_type: 'markdown', id: null }])
    ).toBe(false);
  });
});
