BgammaJNНАм
`ѕzџїаu;ї