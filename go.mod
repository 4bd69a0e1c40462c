module rooda

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/urfave/cli/v2 v2.27.7
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/sys v0.42.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
