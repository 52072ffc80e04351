"""The 22 TPC-H queries twice: as naive PySpark pipelines and as the specification's SQL.

The pipelines follow the unoptimized plans of the MagicPush paper's TPC-H
evaluation (Section 7.2): read the tables, do every join first (join conditions
only), then ONE filter holding the WHERE clause's selection predicates, then the
aggregation, ordering and limit. No predicate is placed early by hand; finding
where each one can go is the optimizer's job.

Subqueries become DataFrame operations in the usual style:

* EXISTS / IN become left semi joins and NOT EXISTS / NOT IN left anti joins
  (the keys involved are never NULL, so NOT IN and an anti join agree); the
  subquery's own conditions go into the join condition, as its WHERE clause
  correlates the two sides.
* Scalar and correlated aggregate subqueries become an aggregate joined back
  on the correlation keys (or cross joined when uncorrelated); the comparison
  with the aggregate is then one more conjunct of the late filter.
* A subquery that aggregates filtered rows (Q15's view, Q20's shipped
  quantities) keeps its own filter below its aggregate, where the SQL has it.

The SQL texts use the specification's default substitution parameters
(the query validation values). Spark SQL needs two spelling changes: date
arithmetic is written `date 'x' + interval 'n' unit` without the precision
suffix, and Q15's view is a WITH clause.

Date constants are `datetime.date` values and the interval arithmetic is done
by hand (1998-12-01 minus 90 days is 1998-09-02): a user writing PySpark
passes dates, not SQL intervals.
"""

from __future__ import annotations

from datetime import date
from typing import Callable

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

Tables = dict[str, DataFrame]

TABLES = ("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem")


def col(name: str):
    return F.col(name)


def _revenue(prefix: str = ""):
    """l_extendedprice * (1 - l_discount), the discounted price of a line item."""
    return col(f"{prefix}l_extendedprice") * (1 - col(f"{prefix}l_discount"))


# ----------------------------------------------------------------------------- Q1-Q5

def q1(t: Tables) -> DataFrame:
    li = t["lineitem"]
    return (li.filter(col("l_shipdate") <= date(1998, 9, 2))
            .groupBy("l_returnflag", "l_linestatus")
            .agg(F.sum("l_quantity").alias("sum_qty"),
                 F.sum("l_extendedprice").alias("sum_base_price"),
                 F.sum(_revenue()).alias("sum_disc_price"),
                 F.sum(_revenue() * (1 + col("l_tax"))).alias("sum_charge"),
                 F.avg("l_quantity").alias("avg_qty"),
                 F.avg("l_extendedprice").alias("avg_price"),
                 F.avg("l_discount").alias("avg_disc"),
                 F.count(F.lit(1)).alias("count_order"))
            .orderBy("l_returnflag", "l_linestatus"))


def q2(t: Tables) -> DataFrame:
    ps, s, n, r, p = t["partsupp"], t["supplier"], t["nation"], t["region"], t["part"]
    min_cost = (ps.join(s, col("ps_suppkey") == col("s_suppkey"))
                .join(n, col("s_nationkey") == col("n_nationkey"))
                .join(r, col("n_regionkey") == col("r_regionkey"))
                .filter(col("r_name") == "EUROPE")
                .groupBy("ps_partkey")
                .agg(F.min("ps_supplycost").alias("min_cost"))
                .withColumnRenamed("ps_partkey", "mc_partkey"))
    return (p.join(ps, col("p_partkey") == col("ps_partkey"))
            .join(s, col("s_suppkey") == col("ps_suppkey"))
            .join(n, col("s_nationkey") == col("n_nationkey"))
            .join(r, col("n_regionkey") == col("r_regionkey"))
            .join(min_cost, (col("p_partkey") == col("mc_partkey"))
                  & (col("ps_supplycost") == col("min_cost")))
            .filter((col("p_size") == 15) & col("p_type").like("%BRASS") & (col("r_name") == "EUROPE"))
            .select("s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr", "s_address", "s_phone",
                    "s_comment")
            .orderBy(col("s_acctbal").desc(), "n_name", "s_name", "p_partkey")
            .limit(100))


def q3(t: Tables) -> DataFrame:
    c, o, li = t["customer"], t["orders"], t["lineitem"]
    return (c.join(o, col("c_custkey") == col("o_custkey"))
            .join(li, col("l_orderkey") == col("o_orderkey"))
            .filter((col("c_mktsegment") == "BUILDING") & (col("o_orderdate") < date(1995, 3, 15))
                    & (col("l_shipdate") > date(1995, 3, 15)))
            .groupBy("l_orderkey", "o_orderdate", "o_shippriority")
            .agg(F.sum(_revenue()).alias("revenue"))
            .select("l_orderkey", "revenue", "o_orderdate", "o_shippriority")
            .orderBy(col("revenue").desc(), "o_orderdate")
            .limit(10))


def q4(t: Tables) -> DataFrame:
    o, li = t["orders"], t["lineitem"]
    return (o.join(li, (col("l_orderkey") == col("o_orderkey"))
                   & (col("l_commitdate") < col("l_receiptdate")), "left_semi")
            .filter((col("o_orderdate") >= date(1993, 7, 1)) & (col("o_orderdate") < date(1993, 10, 1)))
            .groupBy("o_orderpriority")
            .agg(F.count(F.lit(1)).alias("order_count"))
            .orderBy("o_orderpriority"))


def q5(t: Tables) -> DataFrame:
    c, o, li, s, n, r = (t[k] for k in ("customer", "orders", "lineitem", "supplier", "nation", "region"))
    return (c.join(o, col("c_custkey") == col("o_custkey"))
            .join(li, col("l_orderkey") == col("o_orderkey"))
            .join(s, (col("l_suppkey") == col("s_suppkey")) & (col("c_nationkey") == col("s_nationkey")))
            .join(n, col("s_nationkey") == col("n_nationkey"))
            .join(r, col("n_regionkey") == col("r_regionkey"))
            .filter((col("r_name") == "ASIA") & (col("o_orderdate") >= date(1994, 1, 1))
                    & (col("o_orderdate") < date(1995, 1, 1)))
            .groupBy("n_name")
            .agg(F.sum(_revenue()).alias("revenue"))
            .orderBy(col("revenue").desc()))


# ----------------------------------------------------------------------------- Q6-Q10

def q6(t: Tables) -> DataFrame:
    li = t["lineitem"]
    return (li.filter((col("l_shipdate") >= date(1994, 1, 1)) & (col("l_shipdate") < date(1995, 1, 1))
                      & col("l_discount").between(0.05, 0.07) & (col("l_quantity") < 24))
            .agg(F.sum(col("l_extendedprice") * col("l_discount")).alias("revenue")))


def q7(t: Tables) -> DataFrame:
    s, li, o, c, n = (t[k] for k in ("supplier", "lineitem", "orders", "customer", "nation"))
    n1, n2 = n.alias("n1"), n.alias("n2")
    return (s.join(li, col("s_suppkey") == col("l_suppkey"))
            .join(o, col("o_orderkey") == col("l_orderkey"))
            .join(c, col("c_custkey") == col("o_custkey"))
            .join(n1, col("s_nationkey") == col("n1.n_nationkey"))
            .join(n2, col("c_nationkey") == col("n2.n_nationkey"))
            .filter((((col("n1.n_name") == "FRANCE") & (col("n2.n_name") == "GERMANY"))
                     | ((col("n1.n_name") == "GERMANY") & (col("n2.n_name") == "FRANCE")))
                    & col("l_shipdate").between(date(1995, 1, 1), date(1996, 12, 31)))
            .select(col("n1.n_name").alias("supp_nation"), col("n2.n_name").alias("cust_nation"),
                    F.year("l_shipdate").alias("l_year"), _revenue().alias("volume"))
            .groupBy("supp_nation", "cust_nation", "l_year")
            .agg(F.sum("volume").alias("revenue"))
            .orderBy("supp_nation", "cust_nation", "l_year"))


def q8(t: Tables) -> DataFrame:
    p, s, li, o, c, n, r = (t[k] for k in ("part", "supplier", "lineitem", "orders", "customer", "nation",
                                             "region"))
    n1, n2 = n.alias("n1"), n.alias("n2")
    return (p.join(li, col("p_partkey") == col("l_partkey"))
            .join(s, col("s_suppkey") == col("l_suppkey"))
            .join(o, col("l_orderkey") == col("o_orderkey"))
            .join(c, col("o_custkey") == col("c_custkey"))
            .join(n1, col("c_nationkey") == col("n1.n_nationkey"))
            .join(r, col("n1.n_regionkey") == col("r_regionkey"))
            .join(n2, col("s_nationkey") == col("n2.n_nationkey"))
            .filter((col("r_name") == "AMERICA")
                    & col("o_orderdate").between(date(1995, 1, 1), date(1996, 12, 31))
                    & (col("p_type") == "ECONOMY ANODIZED STEEL"))
            .select(F.year("o_orderdate").alias("o_year"), _revenue().alias("volume"),
                    col("n2.n_name").alias("nation"))
            .groupBy("o_year")
            .agg((F.sum(F.when(col("nation") == "BRAZIL", col("volume")).otherwise(0))
                  / F.sum("volume")).alias("mkt_share"))
            .orderBy("o_year"))


def q9(t: Tables) -> DataFrame:
    p, s, li, ps, o, n = (t[k] for k in ("part", "supplier", "lineitem", "partsupp", "orders", "nation"))
    return (li.join(s, col("s_suppkey") == col("l_suppkey"))
            .join(ps, (col("ps_suppkey") == col("l_suppkey")) & (col("ps_partkey") == col("l_partkey")))
            .join(p, col("p_partkey") == col("l_partkey"))
            .join(o, col("o_orderkey") == col("l_orderkey"))
            .join(n, col("s_nationkey") == col("n_nationkey"))
            .filter(col("p_name").like("%green%"))
            .select(col("n_name").alias("nation"), F.year("o_orderdate").alias("o_year"),
                    (_revenue() - col("ps_supplycost") * col("l_quantity")).alias("amount"))
            .groupBy("nation", "o_year")
            .agg(F.sum("amount").alias("sum_profit"))
            .orderBy("nation", col("o_year").desc()))


def q10(t: Tables) -> DataFrame:
    c, o, li, n = (t[k] for k in ("customer", "orders", "lineitem", "nation"))
    return (c.join(o, col("c_custkey") == col("o_custkey"))
            .join(li, col("l_orderkey") == col("o_orderkey"))
            .join(n, col("c_nationkey") == col("n_nationkey"))
            .filter((col("o_orderdate") >= date(1993, 10, 1)) & (col("o_orderdate") < date(1994, 1, 1))
                    & (col("l_returnflag") == "R"))
            .groupBy("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address", "c_comment")
            .agg(F.sum(_revenue()).alias("revenue"))
            .select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone",
                    "c_comment")
            .orderBy(col("revenue").desc())
            .limit(20))


# ----------------------------------------------------------------------------- Q11-Q15

def q11(t: Tables) -> DataFrame:
    ps, s, n = t["partsupp"], t["supplier"], t["nation"]

    def german_stock() -> DataFrame:
        return (ps.join(s, col("ps_suppkey") == col("s_suppkey"))
                .join(n, col("s_nationkey") == col("n_nationkey"))
                .filter(col("n_name") == "GERMANY"))

    stock_value = F.sum(col("ps_supplycost") * col("ps_availqty"))
    threshold = german_stock().agg((stock_value * 0.0001).alias("threshold"))
    return (german_stock().groupBy("ps_partkey")
            .agg(stock_value.alias("value"))
            .crossJoin(threshold)
            .filter(col("value") > col("threshold"))
            .select("ps_partkey", "value")
            .orderBy(col("value").desc()))


def q12(t: Tables) -> DataFrame:
    o, li = t["orders"], t["lineitem"]
    urgent = col("o_orderpriority").isin("1-URGENT", "2-HIGH")
    return (o.join(li, col("o_orderkey") == col("l_orderkey"))
            .filter(col("l_shipmode").isin("MAIL", "SHIP") & (col("l_commitdate") < col("l_receiptdate"))
                    & (col("l_shipdate") < col("l_commitdate")) & (col("l_receiptdate") >= date(1994, 1, 1))
                    & (col("l_receiptdate") < date(1995, 1, 1)))
            .groupBy("l_shipmode")
            .agg(F.sum(F.when(urgent, 1).otherwise(0)).alias("high_line_count"),
                 F.sum(F.when(~urgent, 1).otherwise(0)).alias("low_line_count"))
            .orderBy("l_shipmode"))


def q13(t: Tables) -> DataFrame:
    c, o = t["customer"], t["orders"]
    # the comment condition is part of the outer join's ON clause, not a WHERE predicate
    return (c.join(o, (col("c_custkey") == col("o_custkey")) & ~col("o_comment").like("%special%requests%"),
                   "left")
            .groupBy("c_custkey")
            .agg(F.count("o_orderkey").alias("c_count"))
            .groupBy("c_count")
            .agg(F.count(F.lit(1)).alias("custdist"))
            .orderBy(col("custdist").desc(), col("c_count").desc()))


def q14(t: Tables) -> DataFrame:
    li, p = t["lineitem"], t["part"]
    return (li.join(p, col("l_partkey") == col("p_partkey"))
            .filter((col("l_shipdate") >= date(1995, 9, 1)) & (col("l_shipdate") < date(1995, 10, 1)))
            .agg((100.00 * F.sum(F.when(col("p_type").like("PROMO%"), _revenue()).otherwise(0))
                  / F.sum(_revenue())).alias("promo_revenue")))


def q15(t: Tables) -> DataFrame:
    s, li = t["supplier"], t["lineitem"]

    def revenue0() -> DataFrame:
        return (li.filter((col("l_shipdate") >= date(1996, 1, 1)) & (col("l_shipdate") < date(1996, 4, 1)))
                .groupBy("l_suppkey")
                .agg(F.sum(_revenue()).alias("total_revenue"))
                .withColumnRenamed("l_suppkey", "supplier_no"))

    top = revenue0().agg(F.max("total_revenue").alias("max_revenue"))
    return (s.join(revenue0(), col("s_suppkey") == col("supplier_no"))
            .join(top, col("total_revenue") == col("max_revenue"))
            .select("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue")
            .orderBy("s_suppkey"))


# ----------------------------------------------------------------------------- Q16-Q22

def q16(t: Tables) -> DataFrame:
    ps, p, s = t["partsupp"], t["part"], t["supplier"]
    return (ps.join(p, col("p_partkey") == col("ps_partkey"))
            .join(s, (col("ps_suppkey") == col("s_suppkey")) & col("s_comment").like("%Customer%Complaints%"),
                  "left_anti")
            .filter((col("p_brand") != "Brand#45") & ~col("p_type").like("MEDIUM POLISHED%")
                    & col("p_size").isin(49, 14, 23, 45, 19, 3, 36, 9))
            .groupBy("p_brand", "p_type", "p_size")
            .agg(F.countDistinct("ps_suppkey").alias("supplier_cnt"))
            .orderBy(col("supplier_cnt").desc(), "p_brand", "p_type", "p_size"))


def q17(t: Tables) -> DataFrame:
    li, p = t["lineitem"], t["part"]
    avg_qty = (li.groupBy("l_partkey").agg((0.2 * F.avg("l_quantity")).alias("qty_limit"))
               .withColumnRenamed("l_partkey", "aq_partkey"))
    return (li.join(p, col("p_partkey") == col("l_partkey"))
            .join(avg_qty, col("p_partkey") == col("aq_partkey"))
            .filter((col("p_brand") == "Brand#23") & (col("p_container") == "MED BOX")
                    & (col("l_quantity") < col("qty_limit")))
            .agg((F.sum("l_extendedprice") / 7.0).alias("avg_yearly")))


def q18(t: Tables) -> DataFrame:
    c, o, li = t["customer"], t["orders"], t["lineitem"]
    large = (li.groupBy("l_orderkey").agg(F.sum("l_quantity").alias("order_qty"))
             .filter(col("order_qty") > 300)
             .withColumnRenamed("l_orderkey", "large_orderkey"))
    return (c.join(o, col("c_custkey") == col("o_custkey"))
            .join(li, col("o_orderkey") == col("l_orderkey"))
            .join(large, col("o_orderkey") == col("large_orderkey"), "left_semi")
            .groupBy("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice")
            .agg(F.sum("l_quantity").alias("sum_qty"))
            .orderBy(col("o_totalprice").desc(), "o_orderdate")
            .limit(100))


def q19(t: Tables) -> DataFrame:
    li, p = t["lineitem"], t["part"]

    def branch(brand: str, containers: tuple[str, ...], low: int, size: int):
        return ((col("p_brand") == brand) & col("p_container").isin(*containers)
                & (col("l_quantity") >= low) & (col("l_quantity") <= low + 10)
                & col("p_size").between(1, size)
                & col("l_shipmode").isin("AIR", "AIR REG") & (col("l_shipinstruct") == "DELIVER IN PERSON"))

    return (li.join(p, col("p_partkey") == col("l_partkey"))
            .filter(branch("Brand#12", ("SM CASE", "SM BOX", "SM PACK", "SM PKG"), 1, 5)
                    | branch("Brand#23", ("MED BAG", "MED BOX", "MED PKG", "MED PACK"), 10, 10)
                    | branch("Brand#34", ("LG CASE", "LG BOX", "LG PACK", "LG PKG"), 20, 15))
            .agg(F.sum(_revenue()).alias("revenue")))


def q20(t: Tables) -> DataFrame:
    s, n, ps, p, li = (t[k] for k in ("supplier", "nation", "partsupp", "part", "lineitem"))
    shipped = (li.filter((col("l_shipdate") >= date(1994, 1, 1)) & (col("l_shipdate") < date(1995, 1, 1)))
               .groupBy("l_partkey", "l_suppkey")
               .agg((0.5 * F.sum("l_quantity")).alias("half_qty")))
    excess = (ps.join(p, (col("ps_partkey") == col("p_partkey")) & col("p_name").like("forest%"), "left_semi")
              .join(shipped, (col("l_partkey") == col("ps_partkey"))
                    & (col("l_suppkey") == col("ps_suppkey")))
              .filter(col("ps_availqty") > col("half_qty")))
    return (s.join(n, col("s_nationkey") == col("n_nationkey"))
            .join(excess, col("s_suppkey") == col("ps_suppkey"), "left_semi")
            .filter(col("n_name") == "CANADA")
            .select("s_name", "s_address")
            .orderBy("s_name"))


def q21(t: Tables) -> DataFrame:
    s, li, o, n = (t[k] for k in ("supplier", "lineitem", "orders", "nation"))
    l1, l2, l3 = li.alias("l1"), li.alias("l2"), li.alias("l3")
    return (s.join(l1, col("s_suppkey") == col("l1.l_suppkey"))
            .join(o, col("o_orderkey") == col("l1.l_orderkey"))
            .join(n, col("s_nationkey") == col("n_nationkey"))
            .join(l2, (col("l2.l_orderkey") == col("l1.l_orderkey"))
                  & (col("l2.l_suppkey") != col("l1.l_suppkey")), "left_semi")
            .join(l3, (col("l3.l_orderkey") == col("l1.l_orderkey"))
                  & (col("l3.l_suppkey") != col("l1.l_suppkey"))
                  & (col("l3.l_receiptdate") > col("l3.l_commitdate")), "left_anti")
            .filter((col("o_orderstatus") == "F") & (col("l1.l_receiptdate") > col("l1.l_commitdate"))
                    & (col("n_name") == "SAUDI ARABIA"))
            .groupBy("s_name")
            .agg(F.count(F.lit(1)).alias("numwait"))
            .orderBy(col("numwait").desc(), "s_name")
            .limit(100))


COUNTRY_CODES = ("13", "31", "23", "29", "30", "18", "17")


def q22(t: Tables) -> DataFrame:
    c, o = t["customer"], t["orders"]
    code = F.substring("c_phone", 1, 2)
    avg_balance = (c.filter((col("c_acctbal") > 0.00) & code.isin(*COUNTRY_CODES))
                   .agg(F.avg("c_acctbal").alias("avg_acctbal")))
    return (c.join(o, col("o_custkey") == col("c_custkey"), "left_anti")
            .crossJoin(avg_balance)
            .filter(code.isin(*COUNTRY_CODES) & (col("c_acctbal") > col("avg_acctbal")))
            .select(code.alias("cntrycode"), "c_acctbal")
            .groupBy("cntrycode")
            .agg(F.count(F.lit(1)).alias("numcust"), F.sum("c_acctbal").alias("totacctbal"))
            .orderBy("cntrycode"))


QUERIES: dict[int, Callable[[Tables], DataFrame]] = {
    1: q1, 2: q2, 3: q3, 4: q4, 5: q5, 6: q6, 7: q7, 8: q8, 9: q9, 10: q10, 11: q11,
    12: q12, 13: q13, 14: q14, 15: q15, 16: q16, 17: q17, 18: q18, 19: q19, 20: q20, 21: q21, 22: q22,
}


# ----------------------------------------------------------------------------- the specification's SQL

SQL: dict[int, str] = {
    1: """
select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
       avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc,
       count(*) as count_order
from lineitem
where l_shipdate <= date '1998-12-01' - interval '90' day
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus
""",
    2: """
select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = 15 and p_type like '%BRASS'
  and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'EUROPE'
  and ps_supplycost = (
    select min(ps_supplycost) from partsupp, supplier, nation, region
    where p_partkey = ps_partkey and s_suppkey = ps_suppkey and s_nationkey = n_nationkey
      and n_regionkey = r_regionkey and r_name = 'EUROPE')
order by s_acctbal desc, n_name, s_name, p_partkey
limit 100
""",
    3: """
select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey
  and o_orderdate < date '1995-03-15' and l_shipdate > date '1995-03-15'
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate
limit 10
""",
    4: """
select o_orderpriority, count(*) as order_count
from orders
where o_orderdate >= date '1993-07-01' and o_orderdate < date '1993-07-01' + interval '3' month
  and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority
order by o_orderpriority
""",
    5: """
select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
  and c_nationkey = s_nationkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey
  and r_name = 'ASIA' and o_orderdate >= date '1994-01-01'
  and o_orderdate < date '1994-01-01' + interval '1' year
group by n_name
order by revenue desc
""",
    6: """
select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24
""",
    7: """
select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
  select n1.n_name as supp_nation, n2.n_name as cust_nation, extract(year from l_shipdate) as l_year,
         l_extendedprice * (1 - l_discount) as volume
  from supplier, lineitem, orders, customer, nation n1, nation n2
  where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
    and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
    and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
    and l_shipdate between date '1995-01-01' and date '1996-12-31'
) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year
""",
    8: """
select o_year, sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from (
  select extract(year from o_orderdate) as o_year, l_extendedprice * (1 - l_discount) as volume,
         n2.n_name as nation
  from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
  where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
    and o_custkey = c_custkey and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey
    and r_name = 'AMERICA' and s_nationkey = n2.n_nationkey
    and o_orderdate between date '1995-01-01' and date '1996-12-31' and p_type = 'ECONOMY ANODIZED STEEL'
) as all_nations
group by o_year
order by o_year
""",
    9: """
select nation, o_year, sum(amount) as sum_profit
from (
  select n_name as nation, extract(year from o_orderdate) as o_year,
         l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
  from part, supplier, lineitem, partsupp, orders, nation
  where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey
    and p_partkey = l_partkey and o_orderkey = l_orderkey and s_nationkey = n_nationkey
    and p_name like '%green%'
) as profit
group by nation, o_year
order by nation, o_year desc
""",
    10: """
select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, n_name,
       c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= date '1993-10-01'
  and o_orderdate < date '1993-10-01' + interval '3' month and l_returnflag = 'R'
  and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc
limit 20
""",
    11: """
select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY'
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
  select sum(ps_supplycost * ps_availqty) * 0.0001
  from partsupp, supplier, nation
  where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY')
order by value desc
""",
    12: """
select l_shipmode,
       sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end)
         as high_line_count,
       sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end)
         as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey and l_shipmode in ('MAIL', 'SHIP') and l_commitdate < l_receiptdate
  and l_shipdate < l_commitdate and l_receiptdate >= date '1994-01-01'
  and l_receiptdate < date '1994-01-01' + interval '1' year
group by l_shipmode
order by l_shipmode
""",
    13: """
select c_count, count(*) as custdist
from (
  select c_custkey, count(o_orderkey) as c_count
  from customer left outer join orders
    on c_custkey = o_custkey and o_comment not like '%special%requests%'
  group by c_custkey
) as c_orders
group by c_count
order by custdist desc, c_count desc
""",
    14: """
select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end)
       / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey and l_shipdate >= date '1995-09-01'
  and l_shipdate < date '1995-09-01' + interval '1' month
""",
    15: """
with revenue0 as (
  select l_suppkey as supplier_no, sum(l_extendedprice * (1 - l_discount)) as total_revenue
  from lineitem
  where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-01-01' + interval '3' month
  group by l_suppkey)
select s_suppkey, s_name, s_address, s_phone, total_revenue
from supplier, revenue0
where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue0)
order by s_suppkey
""",
    16: """
select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey and p_brand <> 'Brand#45' and p_type not like 'MEDIUM POLISHED%'
  and p_size in (49, 14, 23, 45, 19, 3, 36, 9)
  and ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%')
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size
""",
    17: """
select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey and p_brand = 'Brand#23' and p_container = 'MED BOX'
  and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)
""",
    18: """
select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) as sum_qty
from customer, orders, lineitem
where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 300)
  and c_custkey = o_custkey and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
limit 100
""",
    19: """
select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (p_partkey = l_partkey and p_brand = 'Brand#12'
       and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
       and l_quantity >= 1 and l_quantity <= 1 + 10 and p_size between 1 and 5
       and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
   or (p_partkey = l_partkey and p_brand = 'Brand#23'
       and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
       and l_quantity >= 10 and l_quantity <= 10 + 10 and p_size between 1 and 10
       and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
   or (p_partkey = l_partkey and p_brand = 'Brand#34'
       and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
       and l_quantity >= 20 and l_quantity <= 20 + 10 and p_size between 1 and 15
       and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
""",
    20: """
select s_name, s_address
from supplier, nation
where s_suppkey in (
    select ps_suppkey from partsupp
    where ps_partkey in (select p_partkey from part where p_name like 'forest%')
      and ps_availqty > (
        select 0.5 * sum(l_quantity) from lineitem
        where l_partkey = ps_partkey and l_suppkey = ps_suppkey
          and l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year))
  and s_nationkey = n_nationkey and n_name = 'CANADA'
order by s_name
""",
    21: """
select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F'
  and l1.l_receiptdate > l1.l_commitdate
  and exists (select * from lineitem l2
              where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
  and not exists (select * from lineitem l3
                  where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey
                    and l3.l_receiptdate > l3.l_commitdate)
  and s_nationkey = n_nationkey and n_name = 'SAUDI ARABIA'
group by s_name
order by numwait desc, s_name
limit 100
""",
    22: """
select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (
  select substring(c_phone, 1, 2) as cntrycode, c_acctbal
  from customer
  where substring(c_phone, 1, 2) in ('13', '31', '23', '29', '30', '18', '17')
    and c_acctbal > (
      select avg(c_acctbal) from customer
      where c_acctbal > 0.00 and substring(c_phone, 1, 2) in ('13', '31', '23', '29', '30', '18', '17'))
    and not exists (select * from orders where o_custkey = c_custkey)
) as custsale
group by cntrycode
order by cntrycode
""",
}
