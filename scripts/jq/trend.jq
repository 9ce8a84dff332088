# The default branch's trend (trend.json, schema afpbench-trend/1, written by
# the action from its history branch: docs/history.md), shared by the chart
# data (trenddata.jq) and the report (report.jq). trend.json names the
# series to draw (.chart), the counts to compare with the last release
# (.compare) and how to call each (.labels): the action decides, these draw.

def median_of: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;

def trend_label($t): . as $m | ($t.labels // {})[$m] // $m;
