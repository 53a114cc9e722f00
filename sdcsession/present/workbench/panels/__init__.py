"""The views of the workbench: what the Views tab and the live panel compute and show.

- `numeric`: numeric disclosure risk (interval disclosure, record linkage, RMD) beside the key
  risk, and the R-U map whose risk axis is the key risk, the numeric risk or both;
- `tables`: suppressions per key, risky records above a threshold, SUDA2, l-diversity of a
  chosen sensitive variable, the comparison of every scenario (DataFrames and escaped HTML);
- `tabs`: tabs whose pages are drawn in the browser when first shown (the app's first paint);
- `explain`: the "?" beside a figure (`sdcsession.session.views.explain.explain_figure`'s text).

ipywidgets is imported inside the widget classes only.
"""
