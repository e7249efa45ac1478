"""Python's csv module (RFC 4180 dialect "excel") on a manifest, for tests/loader/manifest_dataset_test.cc.

params.json: {"manifest": path}. Writes out_rows.json: the rows as csv.DictReader reads them (blank
lines skipped), a list of {field: value}.
"""
import csv

from refutil import params, save_json

with open(params()["manifest"], newline="", encoding="utf-8-sig") as f:
    save_json("rows", [dict(row) for row in csv.DictReader(f)])
