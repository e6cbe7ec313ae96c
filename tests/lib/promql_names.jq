# The metric names a PromQL expression reads: what is left once strings, label
# matchers, range and subquery brackets, grouping label lists, function names,
# numbers and durations (tokens that start with a digit) and keywords are taken
# out. A jq library (`include "promql_names";`) for tests/bats/prometheus.bats:
# Debian packages no PromQL parser.
def promql_names:
  gsub("\"(\\\\.|[^\"\\\\])*\""; "")
  | gsub("\\{[^}]*\\}"; "")
  | gsub("\\[[^\\]]*\\]"; "")
  | gsub("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)"; "")
  | gsub("\\b[A-Za-z_][A-Za-z0-9_]*\\s*\\("; "(")
  | gsub("\\b[0-9][0-9A-Za-z_.]*"; "")
  | [scan("[A-Za-z_:][A-Za-z0-9_:]*")]
  | map(select(IN("and", "or", "unless", "bool", "offset", "group_left", "group_right",
                  "Inf", "NaN", "inf", "nan") | not))
  | unique;
