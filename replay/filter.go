package replay

// keep applies the filters.
func (s *Source) keep(e *entry) bool {
	if len(s.opts.Methods) > 0 {
		ok := false
		for _, m := range s.opts.Methods {
			if string(e.method) == m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(s.opts.Include) > 0 {
		ok := false
		for _, re := range s.opts.Include {
			if re.Match(e.target) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, re := range s.opts.Exclude {
		if re.Match(e.target) {
			return false
		}
	}
	return true
}
