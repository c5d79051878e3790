import { badArguments } from './errors.js';

/**
 * The only URL settings an analyst's query may carry: how the answer is written, and limits it may
 * lower. Everything else is refused before the engine sees it, because ClickHouse settings can name
 * files the engine then reads with the server's rights (`format_template_row`, `format_schema`,
 * `*_path`, ...) and `readonly = 1` guards statements, not the settings set before it.
 */
const OUTPUT = new Set([
  'output_format_json_quote_64bit_integers', 'output_format_json_quote_64bit_floats', 'output_format_json_quote_denormals',
  'output_format_json_quote_decimals', 'output_format_json_named_tuples_as_objects', 'output_format_json_array_of_rows',
  'output_format_json_validate_utf8', 'output_format_json_escape_forward_slashes', 'output_format_write_statistics',
  'output_format_decimal_trailing_zeros', 'output_format_csv_crlf_end_of_line', 'output_format_tsv_crlf_end_of_line',
  'output_format_pretty_max_rows', 'output_format_pretty_max_column_pad_width', 'output_format_pretty_max_value_width',
  'output_format_pretty_color', 'output_format_pretty_grid_charset', 'output_format_pretty_row_numbers',
  'output_format_arrow_string_as_string', 'output_format_parquet_string_as_string',
  'format_csv_delimiter', 'format_csv_null_representation', 'format_tsv_null_representation',
  'date_time_output_format', 'extremes',
]);
/** Limits a query may lower; the session applies the smaller of the asked value and the server's cap. */
const LOWERABLE = new Set(['max_execution_time', 'max_result_rows', 'max_result_bytes', 'max_memory_usage']);
/** Values of an output setting are short words or numbers, never a path or a template. */
const VALUE = /^[A-Za-z0-9_.,;:|+\- ]{0,32}$/;

/**
 * Splits a query's URL settings into the output settings it may apply; a limit is read by the
 * session, `readonly = 1` (what the session sets anyway) is accepted so clients that send it work,
 * and any other setting is a 400 naming it.
 */
export function outputSettingsOf(settings: Map<string, string>): Map<string, string> {
  const output = new Map<string, string>();
  for (const [name, value] of settings) {
    if (LOWERABLE.has(name) || (name === 'readonly' && value === '1')) continue;
    if (!OUTPUT.has(name)) {
      throw badArguments(`Setting '${name}' is not allowed on the analytics interface: only output format settings (${[...OUTPUT].slice(0, 3).join(', ')}, ...) and lowered limits (${[...LOWERABLE].join(', ')}) are accepted`);
    }
    if (!VALUE.test(value)) throw badArguments(`Setting '${name}' has a value that is not a short word or number`);
    output.set(name, value);
  }
  return output;
}
