/// The article page the Article class renders: what the prerendering article's WebView loaded before `setUrl` bound
/// the business data. Parsed in `viewDidLoad`, rendered in `configure`.
let articleTemplate = """
<!DOCTYPE html>
<html lang="{{#lang}}{{lang}}{{/lang}}{{^lang}}en{{/lang}}">
<head>
  <meta charset="utf-8">
  {{#viewport}}<meta name="viewport" content="width={{width}}, height={{height}}, initial-scale=1">{{/viewport}}
  <title>{{title}}{{#site}} — {{site}}{{/site}}</title>
  {{! The style sheet is inline so the page renders with no second request. }}
  <style>
    :root { --text: #1d1d1f; --muted: #6e6e73; --accent: #0071e3; --rule: #d2d2d7; }
    body { margin: 0; font: 17px/1.5 -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); }
    header, main, footer { max-width: 44rem; margin: 0 auto; padding: 0 1.25rem; }
    header { border-bottom: 1px solid var(--rule); padding-bottom: 1rem; }
    h1 { font-size: 2rem; line-height: 1.15; margin: 1.5rem 0 .5rem; }
    .subtitle { color: var(--muted); font-size: 1.2rem; margin: 0 0 1rem; }
    .byline { color: var(--muted); font-size: .9rem; }
    .byline a { color: var(--accent); text-decoration: none; }
    .tags { list-style: none; padding: 0; display: flex; gap: .5rem; flex-wrap: wrap; }
    .tags li { border: 1px solid var(--rule); border-radius: 1rem; padding: 0 .6rem; font-size: .8rem; }
    article p { margin: 0 0 1.1rem; }
    .items { border-top: 1px solid var(--rule); margin-top: 2rem; padding-top: 1rem; }
    .item { display: grid; grid-template-columns: 1fr auto; padding: .4rem 0; }
    .item .price { font-variant-numeric: tabular-nums; }
    .item.sold-out { color: var(--muted); text-decoration: line-through; }
    footer { color: var(--muted); font-size: .8rem; border-top: 1px solid var(--rule); margin-top: 3rem; }
  </style>
</head>
<body>
  <header>
    <h1>{{title}}</h1>
    {{#subtitle}}<p class="subtitle">{{subtitle}}</p>{{/subtitle}}
    <p class="byline">
      {{#author}}By <a href="/authors/{{handle}}">{{name}}</a>{{/author}}{{^author}}By the editors{{/author}}
      {{#published}} · <time datetime="{{published}}">{{published}}</time>{{/published}}
      {{#readingMinutes}} · {{readingMinutes}} min read{{/readingMinutes}}
    </p>
    <ul class="tags">{{#tags}}<li>{{.}}</li>{{/tags}}</ul>
  </header>
  <main>
    <article>
      {{#lead}}<p class="lead"><strong>{{lead}}</strong></p>{{/lead}}
      <p>{{body}}</p>
      {{#paragraphs}}<p>{{.}}</p>
      {{/paragraphs}}
      {{{html}}}
    </article>
    <section class="items" aria-label="Mentioned in this article">
      <h2>Mentioned</h2>
      {{#items}}
      <div class="item{{#soldOut}} sold-out{{/soldOut}}">
        <a href="{{url}}">{{name}}</a>
        <span class="price">{{#price}}{{currency}}{{price}}{{/price}}{{^price}}free{{/price}}</span>
      </div>
      {{/items}}
      {{^items}}<p>Nothing mentioned here.</p>{{/items}}
    </section>
  </main>
  <footer>
    <p>{{#site}}{{site}} · {{/site}}Rendered for container {{container}}{{#viewport}} at {{width}}×{{height}}{{/viewport}}.</p>
    {{#comments}}<p><a href="#comments">{{comments}} comments</a></p>{{/comments}}
  </footer>
</body>
</html>
"""
