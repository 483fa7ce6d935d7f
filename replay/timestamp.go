package replay

import (
	"strconv"
)

// Timestamps are parsed by hand into nanoseconds since the Unix epoch:
// time.Parse allocates a Location for every numeric zone offset, and the
// parse runs once per line.

// parseCLFTime parses a common log format time, "10/Oct/2000:13:55:36 -0700".
func parseCLFTime(b []byte) (int64, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return 0, false
	}
	day, ok1 := digits(b[0:2])
	month := monthNumber(b[3:6])
	year, ok2 := digits(b[7:11])
	hour, ok3 := digits(b[12:14])
	minute, ok4 := digits(b[15:17])
	sec, ok5 := digits(b[18:20])
	offset, ok6 := zoneOffset(b[21:26], false)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month == 0 {
		return 0, false
	}
	return civil(year, month, day, hour, minute, sec, 0, offset)
}

// parseRFC3339 parses "2006-01-02T15:04:05.999999999Z07:00" (also with a
// space or lower-case t between date and time, and z for Z). coarse is
// true when it has no fraction of a second.
func parseRFC3339(b []byte) (ns int64, coarse, ok bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[13] != ':' || b[16] != ':' {
		return 0, false, false
	}
	if c := b[10]; c != 'T' && c != 't' && c != ' ' {
		return 0, false, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false, false
	}
	rest := b[19:]
	var frac int64
	coarse = true
	if rest[0] == '.' {
		i := 1
		scale := int64(100_000_000)
		for i < len(rest) && isDigit(rest[i]) {
			frac += int64(rest[i]-'0') * scale // digits past nanoseconds are dropped
			scale /= 10
			i++
		}
		if i == 1 {
			return 0, false, false
		}
		coarse = false
		rest = rest[i:]
	}
	var offset int
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6:
		var ok bool
		if offset, ok = zoneOffset(rest, true); !ok {
			return 0, false, false
		}
	default:
		return 0, false, false
	}
	ns, ok = civil(year, month, day, hour, minute, sec, frac, offset)
	return ns, coarse, ok
}

// parseUnixSeconds parses a JSON number of seconds since the epoch, such
// as 1700000000 or 1700000000.25. coarse is true for a whole number.
func parseUnixSeconds(b []byte) (ns int64, coarse, ok bool) {
	i := 0
	var sec int64
	for i < len(b) && isDigit(b[i]) {
		sec = sec*10 + int64(b[i]-'0')
		i++
		if sec > 1<<33 { // past the year 2242: not a log time
			return 0, false, false
		}
	}
	if i == 0 {
		return 0, false, false
	}
	if i == len(b) {
		return sec * 1e9, true, true
	}
	if b[i] == '.' {
		j := i + 1
		var frac int64
		scale := int64(100_000_000)
		for j < len(b) && isDigit(b[j]) {
			frac += int64(b[j]-'0') * scale
			scale /= 10
			j++
		}
		if j == len(b) && j > i+1 {
			return sec*1e9 + frac, false, true
		}
	}
	// An exponent (1.7e9): rare, so the allocating parser is fine.
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || f > 1<<33 {
		return 0, false, false
	}
	return int64(f * 1e9), false, true
}

// digits parses a fixed-width unsigned decimal.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// zoneOffset parses "+hhmm" (or "+hh:mm" with colon) into seconds east of UTC.
func zoneOffset(b []byte, colon bool) (int, bool) {
	sign := 1
	switch b[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return 0, false
	}
	hh, ok1 := digits(b[1:3])
	mm := b[3:5]
	if colon {
		if b[3] != ':' {
			return 0, false
		}
		mm = b[4:6]
	}
	m, ok2 := digits(mm)
	if !ok1 || !ok2 || hh > 23 || m > 59 {
		return 0, false
	}
	return sign * (hh*3600 + m*60), true
}

func monthNumber(b []byte) int {
	switch string(b) {
	case "Jan":
		return 1
	case "Feb":
		return 2
	case "Mar":
		return 3
	case "Apr":
		return 4
	case "May":
		return 5
	case "Jun":
		return 6
	case "Jul":
		return 7
	case "Aug":
		return 8
	case "Sep":
		return 9
	case "Oct":
		return 10
	case "Nov":
		return 11
	case "Dec":
		return 12
	}
	return 0
}

// civil converts a date and time at a zone offset (seconds east of UTC) to
// nanoseconds since the Unix epoch, checking the fields' ranges.
func civil(year, month, day, hour, minute, sec int, frac int64, offset int) (int64, bool) {
	if year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || sec > 60 {
		return 0, false
	}
	// Days since 1970-01-01 by the proleptic Gregorian calendar, counting
	// years from March so that the leap day comes last.
	y, m := year, month
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era*146097 + doe - 719468)
	secs := days*86400 + int64(hour*3600+minute*60+sec) - int64(offset)
	return secs*1e9 + frac, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
